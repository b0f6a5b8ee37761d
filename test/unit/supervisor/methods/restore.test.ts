import { afterEach, describe, expect, it } from 'vitest';
import { restore } from '../../../../src/supervisor/methods/restore.js';
import type { SavedSession } from '../../../../src/store/sessions.js';
import { startRig, type Rig } from '../harness.js';
import { call, CONFIG_FILE, fakeRequest, hostOf } from './call.js';
import { BOSS_SECRET, family } from './screens.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

const saved: SavedSession = {
  version: 1,
  server: '/tmp/tmux-1000/default',
  session: 'work',
  savedAt: '2025-01-01T00:00:00.000Z',
  windows: [{ agent: 'sh', name: 'shell', index: 2, cwd: '/', args: [], argv: ['sh'], conversationId: null, conversationFrom: null, queue: [] }],
};

describe('nerdr.restore', () => {
  it('an agent window gets the plan, and is refused the restore unless [agents] control = "all"', async () => {
    rig = await startRig(family);
    const ask = { sessions: [saved], callerEnv: { PATH: process.env.PATH, HOME: '/home/x' }, caller: BOSS_SECRET };
    await expect(call(restore, hostOf(rig), { ...ask, dryRun: true })).resolves.toMatchObject({ dryRun: true });
    await expect(call(restore, hostOf(rig), ask)).rejects.toMatchObject({
      code: 'not_permitted',
      message: 'boss (@1) is an agent window: it may not restore saved sessions: their windows would be no helpers of it, and exited windows would start again',
      fix: `ask the user to run it from a shell, or, to let agents act on every window, set [agents] control = "all" in ${CONFIG_FILE}`,
    });
    expect(rig.tmux.sent('new-window', 'new-session', 'respawn-pane')).toEqual([]);
  });

  it('dryRun: the plan (a session to make, its window and its program), nothing done', async () => {
    rig = await startRig();
    const req = fakeRequest();
    const r = await call(restore, hostOf(rig), { sessions: [saved], dryRun: true, callerEnv: { PATH: process.env.PATH, HOME: '/home/x' } }, req);
    expect(r).toMatchObject({ dryRun: true, sessions: [{ session: 'work', create: true }], windows: [{ argv: ['sh'], installed: true }] });
    expect(req.streamed()).toBe(false);
    expect(rig.tmux.sent('new-window', 'new-session')).toEqual([]);
  });

  it('sessions that are not saved sessions: invalid_params naming the field, and nothing restored', async () => {
    rig = await startRig();
    await expect(call(restore, hostOf(rig), { dryRun: true })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.restore: sessions is missing: expected an array' });
    const bad = { ...saved, windows: [{ ...saved.windows[0], cwd: '' }] };
    await expect(call(restore, hostOf(rig), { sessions: [bad] })).rejects.toMatchObject({ code: 'invalid_params', message: expect.stringMatching(/^nerdr\.restore: sessions\.0\.windows\.0\.cwd: /) });
    expect(rig.tmux.sent('new-window', 'new-session')).toEqual([]);
  });
});
