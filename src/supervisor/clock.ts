// Time as the supervisor sees it: the current time and one-shot timers, injected so that its
// parts run under a fake clock in the unit tests (as the arbiter does).

export interface Timer {
  cancel(): void;
}

export interface Clock {
  now(): number;
  /**
   * Calls fn once, ms from now. 0 (or less): at the end of this turn of the event loop, after
   * the input it is handling (setImmediate), not on a timer of its own: work a line of output
   * sets off runs in the wake-up that read it (docs/performance.md, "Wake-ups").
   */
  after(ms: number, fn: () => void): Timer;
}

/** setTimeout's longest wait (about 24.8 days); a longer one would fire at once. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    if (ms <= 0) {
      const i = setImmediate(fn);
      return { cancel: () => clearImmediate(i) };
    }
    // a wait longer than setTimeout takes (a usage limit that resets next month) waits in steps
    let t: NodeJS.Timeout;
    const wait = (left: number): void => {
      t = setTimeout(() => (left > MAX_TIMEOUT_MS ? wait(left - MAX_TIMEOUT_MS) : fn()), Math.min(left, MAX_TIMEOUT_MS));
    };
    wait(ms);
    return { cancel: () => clearTimeout(t) };
  },
};

/** A promise that resolves ms from now on the clock. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => void clock.after(ms, resolve));
}
