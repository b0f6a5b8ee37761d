import { afterEach, describe, expect, it } from 'vitest';
import { ls } from '../../../../src/supervisor/methods/ls.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.ls', () => {
  it("answers one row per watched window, with the window's own facts", async () => {
    rig = await startRig((t) => {
      t.addPane({ name: 'api', cwd: '/src/api', args: ['--model', 'x'] });
      t.addPane({ name: 'web', session: 'other' });
    });
    const r = await call(ls, hostOf(rig), {});
    expect(r.agents.map((x: { name: string }) => x.name)).toEqual(['api', 'web']);
    expect(r.agents[0]).toMatchObject({ window: '@1', pane: '%1', id: 'a1', cwd: '/src/api', args: ['--model', 'x'], session: 'user', queue: 0, parent: null });
    expect(r.agents[1]).toMatchObject({ window: '@2', session: 'other' });
  });

  it('params that are not an object are invalid_params', async () => {
    rig = await startRig();
    await expect(call(ls, hostOf(rig), [])).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.ls: params must be an object, not an array' });
  });
});
