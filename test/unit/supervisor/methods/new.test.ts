import { afterEach, describe, expect, it } from 'vitest';
import { newWindow } from '../../../../src/supervisor/methods/new.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';
import { BOSS_SECRET, family } from './screens.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.new', () => {
  it('creates the window, watches it before it answers, and records an agent caller as its parent', async () => {
    rig = await startRig(family);
    const r = await call(newWindow, hostOf(rig), { session: 'user', argv: ['demo', '--fast'], agent: 'demo', name: 'api', cwd: '/src/api', note: 'hi', caller: BOSS_SECRET, callerEnv: { FOO: 'bar' } });
    expect(r).toMatchObject({ window: '@4', pane: '%4', agent: 'demo' });
    const a = rig.sup.agents.get('%4')!;
    expect(a).toMatchObject({ name: 'api', cwd: '/src/api', id: r.id, note: 'hi' });
    expect(rig.tmux.pane('%4').argv).toEqual(['demo', '--fast']);
    expect(rig.tmux.pane('%4').env.FOO).toBe('bar');
    expect(rig.tmux.pane('%4').options.get('@nerdr_lineage')).toBe('boss');
  });

  it('no program, a folder that is not absolute, a broken worktree or quiet wait: invalid_params, and no window', async () => {
    rig = await startRig();
    const host = hostOf(rig);
    const ok = { session: 'user', argv: ['demo'] };
    await expect(call(newWindow, host, { ...ok, argv: [] })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.new: argv must name a program' });
    await expect(call(newWindow, host, { ...ok, cwd: 'src' })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.new: cwd must be an absolute path' });
    await expect(call(newWindow, host, { ...ok, worktree: { path: '/w', branch: '', base: 'main' } })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.new: worktree.branch must not be empty' });
    await expect(call(newWindow, host, { ...ok, idleAfterMs: 2.5 })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.new: idleAfterMs must be a whole number of milliseconds (0: off)' });
    await expect(call(newWindow, host, { argv: ['demo'] })).rejects.toMatchObject({
      code: 'invalid_params',
      message: 'nerdr.new: session is missing: expected a string',
      fix: expect.stringContaining('{session, argv, agent?, name?, cwd?,'),
    });
    expect(rig.tmux.sent('new-window')).toEqual([]);
  });
});
