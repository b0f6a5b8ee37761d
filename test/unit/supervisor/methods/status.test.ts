import { afterEach, describe, expect, it } from 'vitest';
import { status } from '../../../../src/supervisor/methods/status.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.status', () => {
  it('counts the windows in each state', async () => {
    rig = await startRig((t) => {
      t.addPane();
      t.addPane({ dead: true, deadStatus: '1' });
    });
    await rig.wait(300);
    const r = await call(status, hostOf(rig), {});
    expect(r).toEqual({ counts: { unknown: 1, exited: 1 }, total: 2 });
  });

  it('params that are not an object are invalid_params', async () => {
    rig = await startRig();
    await expect(call(status, hostOf(rig), 'all')).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.status: params must be an object, not a string' });
  });
});
