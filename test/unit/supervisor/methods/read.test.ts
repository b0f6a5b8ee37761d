import { afterEach, describe, expect, it } from 'vitest';
import { read, READ_WAIT_MS } from '../../../../src/supervisor/methods/read.js';
import { settle, startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

/** A new window, watched, whose first snapshot's answers are held (the channel holds them until release). */
async function unread(r: Rig, screen: string): Promise<string> {
  r.channel().hold = true;
  const p = r.tmux.addPane({ screen: [screen] });
  r.channel().notify('window-add', p.windowId);
  await r.wait(40);
  // the scan's answer comes; the snapshot it sends is held
  r.channel().release();
  await settle();
  expect(r.sup.agents.get(p.paneId)?.mirror).toBeNull();
  return p.paneId;
}

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
    const second = await unread(rig, 'a new one');
    let answered: { text: string } | null = null;
    const reading = call(read, hostOf(rig), { target: second }).then((r) => (answered = r));
    await settle();
    expect(answered).toBeNull();
    rig.channel().hold = false;
    rig.channel().release();
    await reading;
    expect(answered!.text).toMatch(/^a new one\n/);

    // one whose answers never come
    const third = await unread(rig, 'never');
    const failing = call(read, hostOf(rig), { target: third });
    failing.catch(() => undefined);
    await rig.wait(READ_WAIT_MS - 100);
    await rig.wait(200);
    await expect(failing).rejects.toMatchObject({ code: 'not_ready' });
    rig.channel().hold = false;
    rig.channel().release();
  });
});
