import { afterEach, describe, expect, it } from 'vitest';
import { stop } from '../../../../src/supervisor/methods/stop.js';
import { startRig, type Rig } from '../harness.js';
import { call, CONFIG_FILE, hostOf } from './call.js';
import { BOSS_SECRET, family } from './screens.js';

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

  it('an agent window is refused unless [agents] control = "all"; a secret of no window counts as a person', async () => {
    rig = await startRig(family);
    await expect(call(stop, hostOf(rig), { caller: BOSS_SECRET })).rejects.toMatchObject({
      code: 'not_permitted',
      message: 'boss (@1) is an agent window: it may not stop or restart the supervisor, which watches every window',
      fix: `ask the user to run it from a shell, or, to let agents act on every window, set [agents] control = "all" in ${CONFIG_FILE}`,
    });
    await rig.wait(20);
    expect(rig.sup.stopCause).toBeNull();
    expect(await call(stop, hostOf(rig, 'all'), { caller: BOSS_SECRET })).toEqual({ stopping: true });
    await rig.wait(20);
    expect(rig.sup.stopCause).toBe('asked');
  });
});
