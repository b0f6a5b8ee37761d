// The supervisor's clock: a wait of 0 runs at the end of the turn that asked for it (setImmediate,
// in the same wake-up of the event loop), not on a timer of its own; longer waits are timers.
import { readFile } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/supervisor/clock.js';

/** Runs fn in an I/O callback, as the supervisor's work on tmux's output runs. */
const inIoCallback = (fn: () => void): Promise<void> => new Promise((resolve) => readFile(__filename, () => (fn(), resolve())));

describe('systemClock', () => {
  it('after(0) from an I/O callback runs before a timer due at once (setTimeout 0, made first)', async () => {
    const order: string[] = [];
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    await inIoCallback(() => {
      setTimeout(() => {
        order.push('timer');
        done();
      }, 0);
      systemClock.after(0, () => order.push('after(0)'));
    });
    await finished;
    expect(order).toEqual(['after(0)', 'timer']);
  });

  it('after(0) and after(ms) can be cancelled', async () => {
    const fired: string[] = [];
    systemClock.after(0, () => fired.push('0')).cancel();
    systemClock.after(1, () => fired.push('1')).cancel();
    systemClock.after(0, () => fired.push('kept'));
    // a timer made after them, due later: by the time it fires, theirs would have
    await new Promise((r) => setTimeout(r, 2));
    expect(fired).toEqual(['kept']);
  });
});
