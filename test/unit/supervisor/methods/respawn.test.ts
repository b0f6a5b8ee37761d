import { afterEach, describe, expect, it } from 'vitest';
import { respawn } from '../../../../src/supervisor/methods/respawn.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';
import { BOSS_SECRET, family } from './screens.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.respawn', () => {
  it('starts the program again in the same pane, with a new secret', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', dead: true, deadStatus: '1' }));
    const before = rig.sup.agents.get('%1')!.secretHash;
    const r = await call(respawn, hostOf(rig), { target: 'api', argv: ['demo', '--again'], env: { X: '1' }, note: 'resume failed' });
    expect(r).toEqual({ target: '@1' });
    expect(rig.tmux.pane('%1').argv).toEqual(['demo', '--again']);
    expect(rig.tmux.pane('%1').env.X).toBe('1');
    expect(rig.sup.agents.get('%1')!.secretHash).not.toBe(before);
    expect(rig.sup.agents.get('%1')!.note).toBe('resume failed');
  });

  it('no program, or an env that is not text, is invalid_params; nothing is respawned', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api' }));
    await expect(call(respawn, hostOf(rig), { target: 'api', argv: [] })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.respawn: argv must name a program' });
    await expect(call(respawn, hostOf(rig), { target: 'api', argv: ['demo'], env: { X: 1 } })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.respawn: env.X must be a string, not a number' });
    expect(rig.tmux.sent('respawn-pane')).toEqual([]);
  });

  it('an agent window may restart only the windows it started', async () => {
    rig = await startRig(family);
    await expect(call(respawn, hostOf(rig), { target: 'other', argv: ['demo'], caller: BOSS_SECRET })).rejects.toMatchObject({ code: 'not_permitted' });
    expect(await call(respawn, hostOf(rig), { target: 'helper', argv: ['demo'], caller: BOSS_SECRET })).toEqual({ target: '@2' });
  });
});
