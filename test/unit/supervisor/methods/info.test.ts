import { afterEach, describe, expect, it } from 'vitest';
import { info } from '../../../../src/supervisor/methods/info.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.info', () => {
  it('names this process, its control client, its tmux and its socket', async () => {
    rig = await startRig((t) => {
      t.version = '3.5a';
      t.addPane();
    });
    const r = await call(info, hostOf(rig), {});
    expect(r).toMatchObject({ pid: process.pid, ready: true, client: 'client-1', clientPid: 1, tmuxVersion: '3.5a', agents: 1, socket: '/run/nerdr-test.sock' });
    expect(r.uptimeMs).toBeGreaterThan(0);
  });

  it('params that are not an object are invalid_params', async () => {
    rig = await startRig();
    await expect(call(info, hostOf(rig), null)).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.info: params must be an object, not null' });
  });
});
