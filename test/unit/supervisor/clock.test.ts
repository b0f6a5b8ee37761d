// The supervisor's clock: a wait of 0 runs at the end of the turn that asked for it (setImmediate,
// in the same wake-up of the event loop), not on a timer of its own; longer waits are timers.
import { readFile } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { systemClock, until } from '../../../src/supervisor/clock.js';
import { FakeTime, settle } from './harness.js';

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

describe('until', () => {
  it('checks at once, then every step on the clock, and says whether the check held within the time', async () => {
    const time = new FakeTime(1000);
    let checks = 0;
    const met = until(time, () => ++checks === 3, 100, 10);
    for (let i = 0; i < 5; i++) {
      await settle(1);
      time.advance(10);
    }
    expect(await met).toBe(true);
    expect(checks).toBe(3);
    checks = 0;
    const never = until(time, () => (++checks, false), 30, 10);
    for (let i = 0; i < 6; i++) {
      await settle(1);
      time.advance(10);
    }
    expect(await never).toBe(false);
    expect(checks).toBe(4); // at 0, 10, 20 and 30 ms
  });
});
