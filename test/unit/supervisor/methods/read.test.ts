import { afterEach, describe, expect, it } from 'vitest';
import { read } from '../../../../src/supervisor/methods/read.js';
import { startRig, type Rig } from '../harness.js';
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
});
