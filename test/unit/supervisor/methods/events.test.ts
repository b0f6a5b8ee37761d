import { afterEach, describe, expect, it } from 'vitest';
import { events } from '../../../../src/supervisor/methods/events.js';
import { startRig, type Rig } from '../harness.js';
import { call, fakeRequest, hostOf } from './call.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.events', () => {
  it('answers the rows, then a line per change: which fields, their earlier values, the row now', async () => {
    rig = await startRig((t) => {
      t.addPane({ name: 'api' });
      t.addPane({ name: 'web' });
    });
    const req = fakeRequest();
    const r = await call(events, hostOf(rig), {}, req);
    expect(r.type).toBe('events_started');
    expect(r.agents.map((x: { name: string }) => x.name)).toEqual(['api', 'web']);
    rig.sup.setNote(rig.sup.agents.get('%2')!, 'look');
    expect(req.lines).toEqual([{ type: 'change', at: rig.time.now(), changed: ['note'], was: { note: null }, agent: expect.objectContaining({ name: 'web', note: 'look' }) }]);
  });

  it('with a target: that window only, and the stream ends once it closes', async () => {
    rig = await startRig((t) => {
      t.addPane({ name: 'api' });
      t.addPane({ name: 'web' });
    });
    const req = fakeRequest();
    const r = await call(events, hostOf(rig), { target: 'web' }, req);
    expect(r.agents.map((x: { name: string }) => x.name)).toEqual(['web']);
    rig.sup.setNote(rig.sup.agents.get('%1')!, 'not this one');
    expect(req.lines).toEqual([]);
    rig.tmux.panes.delete('%2');
    rig.channel().notify('window-close', '@2');
    await rig.wait(50);
    expect(req.lines).toEqual([{ type: 'closed', at: expect.any(Number), window: '@2', id: 'a2', name: 'web' }]);
    expect(req.ended()).toBe(true);
  });

  it('a target that is not a string is invalid_params; one that names nothing unknown_target', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api' }));
    await expect(call(events, hostOf(rig), { target: ['api'] })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.events: target must be a string, not an array' });
    await expect(call(events, hostOf(rig), { target: 'web' })).rejects.toMatchObject({ code: 'unknown_target' });
  });
});
