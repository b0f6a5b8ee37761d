import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../../../../src/supervisor/methods/send.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf, CONFIG_FILE } from './call.js';
import { BOSS_SECRET, WORKING, family } from './screens.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.send', () => {
  it('queues the message on disk and answers its id and place', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: WORKING }));
    await rig.wait(300);
    const r = await call(send, hostOf(rig), { target: 'api', message: 'run the tests' });
    expect(r).toMatchObject({ target: '@1', position: 1, state: 'working', exited: false });
    expect(rig.sup.messages.receipt(r.id)?.agentId).toBe('a1');
  });

  it('an empty or missing message is invalid_params; one over 256 KiB is too_large', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: WORKING }));
    await expect(call(send, hostOf(rig), { target: 'api', message: '' })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.send: message must not be empty', fix: expect.stringMatching(/^nerdr\.send takes \{target, message, caller\?\}/) });
    await expect(call(send, hostOf(rig), { target: 'api' })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.send: message is missing: expected a string' });
    await expect(call(send, hostOf(rig), { target: 'api', message: 'x'.repeat(256 * 1024 + 1) })).rejects.toMatchObject({ code: 'too_large' });
  });

  it('an agent window may send only to the windows it started, unless control = "all"', async () => {
    rig = await startRig(family);
    await expect(call(send, hostOf(rig), { target: 'other', message: 'hi', caller: BOSS_SECRET })).rejects.toMatchObject({ code: 'not_permitted', fix: expect.stringContaining(CONFIG_FILE) });
    expect((await call(send, hostOf(rig), { target: 'helper', message: 'hi', caller: BOSS_SECRET })).target).toBe('@2');
    expect((await call(send, hostOf(rig, 'all'), { target: 'other', message: 'hi', caller: BOSS_SECRET })).target).toBe('@3');
  });
});
