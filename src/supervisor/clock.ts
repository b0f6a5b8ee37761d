// Time as the supervisor sees it: the current time and one-shot timers, injected so that its
// parts run under a fake clock in the unit tests (as the arbiter does).

export interface Timer {
  cancel(): void;
}

export interface Clock {
  now(): number;
  /** Calls fn once, ms from now. */
  after(ms: number, fn: () => void): Timer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  },
};

/** A promise that resolves ms from now on the clock. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => void clock.after(ms, resolve));
}
