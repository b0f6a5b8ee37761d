import { afterEach, describe, expect, it } from 'vitest';
import { read, READ_WAIT_MS } from '../../../../src/supervisor/methods/read.js';
import { settle, startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.read', () => {
  it("answers the mirrored screen; lines: the last lines that hold something", async () => {
    rig = await startRig((t) => void t.addPane({ screen: ['first', 'second', 'third'] }));
    const r = await call(read, hostOf(rig), { target: '%1' });
    expect(r.target).toBe('@1');
    expect(r.text).toMatch(/^first\nsecond\nthird\n/);
    expect((await call(read, hostOf(rig), { target: '%1', lines: 2 })).text).toBe('second\nthird\n');
  });

  it('lines of 0 or a fraction is invalid_params', async () => {
    rig = await startRig((t) => void t.addPane());
    await expect(call(read, hostOf(rig), { target: '%1', lines: 0 })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.read: lines must be 1 or more' });
    await expect(call(read, hostOf(rig), { target: '%1', lines: 1.5 })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.read: lines must be a whole number' });
    await expect(call(read, hostOf(rig), { target: '%1', ansi: 'yes' })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.read: ansi must be a boolean, not a string' });
  });

  it("a window whose screen is not taken yet: the read waits for it, and says not_ready only after READ_WAIT_MS", async () => {
    rig = await startRig((t) => void t.addPane({ screen: ['first'] }));
    // a new window: its snapshot's answers are on their way
    rig.channel().hold = true;
    rig.tmux.addPane({ screen: ['a new one'] });
    rig.channel().notify('window-add', '@2');
    await rig.wait(40);
    // the scan's answer comes; the snapshot it sends is held
    rig.channel().release();
    await settle();
    expect(rig.sup.agents.get('%2')?.mirror).toBeNull();
    let answered: { text: string } | null = null;
    const reading = call(read, hostOf(rig), { target: '%2' }).then((r) => (answered = r));
    await settle();
    expect(answered).toBeNull();
    rig.channel().hold = false;
    rig.channel().release();
    await reading;
    expect(answered!.text).toMatch(/^a new one\n/);

    // one whose answers never come
    rig.channel().hold = true;
    rig.tmux.addPane({ screen: ['never'] });
    rig.channel().notify('window-add', '@3');
    await rig.wait(40);
    rig.channel().release();
    await settle();
    expect(rig.sup.agents.get('%3')?.mirror).toBeNull();
    const failing = call(read, hostOf(rig), { target: '%3' });
    failing.catch(() => undefined);
    await rig.wait(READ_WAIT_MS - 100);
    await rig.wait(200);
    await expect(failing).rejects.toMatchObject({ code: 'not_ready' });
    rig.channel().hold = false;
    rig.channel().release();
  });
});
