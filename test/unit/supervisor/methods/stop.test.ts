import { afterEach, describe, expect, it } from 'vitest';
import { stop } from '../../../../src/supervisor/methods/stop.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.stop', () => {
  it('answers first, then the supervisor stops', async () => {
    rig = await startRig();
    let exited = false;
    rig.sup.on('exit', () => void (exited = true));
    expect(await call(stop, hostOf(rig), {})).toEqual({ stopping: true });
    expect(exited).toBe(false);
    await rig.wait(20);
    expect(exited).toBe(true);
    expect(rig.sup.stopCause).toBe('asked');
  });

  it('params that are not an object are invalid_params, and nothing stops', async () => {
    rig = await startRig();
    await expect(call(stop, hostOf(rig), [1])).rejects.toMatchObject({ code: 'invalid_params' });
    await rig.wait(20);
    expect(rig.sup.stopCause).toBeNull();
  });
});
