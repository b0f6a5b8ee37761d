import { afterEach, describe, expect, it } from 'vitest';
import { subscribe } from '../../../../src/supervisor/methods/subscribe.js';
import { startRig, type Rig } from '../harness.js';
import { call, fakeRequest, hostOf } from './call.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.subscribe', () => {
  it('answers the rows, then pushes them again after changes (coalesced) until the client hangs up', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api' }));
    const base = rig.sup.listenerCount('change');
    const req = fakeRequest();
    const r = await call(subscribe, hostOf(rig), {}, req);
    expect(r).toMatchObject({ type: 'subscription_started', agents: [{ name: 'api' }] });
    expect(r.active).toBeUndefined();
    const a = rig.sup.agents.get('%1')!;
    rig.sup.setNote(a, 'one');
    rig.sup.setNote(a, 'two');
    await rig.wait(150);
    expect(req.lines).toEqual([{ event: 'agents', data: { agents: [expect.objectContaining({ name: 'api', note: 'two' })] } }]);
    req.hangUp();
    expect(rig.sup.listenerCount('change')).toBe(base);
    rig.sup.setNote(a, 'three');
    await rig.wait(150);
    expect(req.lines).toHaveLength(1);
  });

  it("with active: each session's current window, at once and on a switch", async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api' }));
    const req = fakeRequest();
    const r = await call(subscribe, hostOf(rig), { active: true }, req);
    expect(Array.isArray(r.active)).toBe(true);
    expect(rig.sup.listenerCount('active')).toBe(1);
    req.hangUp();
    expect(rig.sup.listenerCount('active')).toBe(0);
  });

  it('an active that is not a boolean is invalid_params, and nothing is followed', async () => {
    rig = await startRig();
    const req = fakeRequest();
    await expect(call(subscribe, hostOf(rig), { active: 1 }, req)).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.subscribe: active must be a boolean, not a number' });
    expect(req.streamed()).toBe(false);
  });
});
