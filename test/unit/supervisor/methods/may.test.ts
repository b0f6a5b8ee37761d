import { afterEach, describe, expect, it } from 'vitest';
import { may } from '../../../../src/supervisor/methods/may.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf, CONFIG_FILE } from './call.js';
import { BOSS_SECRET, family } from './screens.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.may', () => {
  it('an agent window may act on the windows it started; a person, or control = "all", on every one', async () => {
    rig = await startRig(family);
    expect(await call(may, hostOf(rig), { caller: BOSS_SECRET, action: 'stop' })).toEqual({ all: false, caller: '@1', windows: ['@2'], fix: expect.stringContaining(CONFIG_FILE) });
    expect(await call(may, hostOf(rig), {})).toEqual({ all: true, windows: ['@1', '@2', '@3'] });
    // a secret that names no window is a person's
    expect(await call(may, hostOf(rig), { caller: 'gone' })).toEqual({ all: true, windows: ['@1', '@2', '@3'] });
    expect(await call(may, hostOf(rig, 'all'), { caller: BOSS_SECRET })).toEqual({ all: true, windows: ['@1', '@2', '@3'] });
  });

  it('an action the limits do not know is invalid_params', async () => {
    rig = await startRig(family);
    await expect(call(may, hostOf(rig), { caller: BOSS_SECRET, action: 'delete' })).rejects.toMatchObject({ code: 'invalid_params', message: expect.stringMatching(/^nerdr\.may: action: /) });
  });
});
