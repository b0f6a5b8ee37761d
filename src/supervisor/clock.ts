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
  /**
   * Calls fn once, at the first step of a shared grid (GRID_STEP_MS) at least ms from now: up to
   * a step late, in one wake-up with every other coarse timer due on that step (a hundred
   * windows' quiet timers and the lights' next flush, docs/performance.md, "One grid"). A clock
   * without a grid (the tests' fake ones) waits exactly ms.
   */
  coarse?(ms: number, fn: () => void): Timer;
}

/** The grid's step: coarse timers due in the same step (its 250 ms of time) share a wake-up. */
export const GRID_STEP_MS = 250;
/** A wait this long or longer may be a grid step late (clock.coarse): 12.5 % of it at most. */
export const GRID_MIN_MS = 2000;

/** A wait of ms: on the clock's grid when it is GRID_MIN_MS or longer and the clock has one, else exact. */
export function afterOrCoarse(clock: Clock, ms: number, fn: () => void): Timer {
  return ms >= GRID_MIN_MS && clock.coarse ? clock.coarse(ms, fn) : clock.after(ms, fn);
}

/**
 * Timers on a grid of `step` ms of `now()`'s time: each step that has any holds one real timer,
 * which runs the step's callbacks in the order they were added; a step whose callbacks were all
 * cancelled has its timer cleared, so it costs no wake-up.
 */
export class TimerGrid {
  private readonly slots = new Map<number, { fns: Set<() => void>; handle: unknown }>();

  constructor(
    private readonly now: () => number,
    private readonly setTimer: (ms: number, fn: () => void) => unknown,
    private readonly clearTimer: (handle: unknown) => void,
    private readonly step = GRID_STEP_MS,
  ) {}

  /** fn at the first step at least ms from now. */
  at(ms: number, fn: () => void): Timer {
    const slot = Math.ceil((this.now() + Math.max(0, ms)) / this.step) * this.step;
    let s = this.slots.get(slot);
    if (!s) {
      const fns = new Set<() => void>();
      s = { fns, handle: this.setTimer(Math.max(0, slot - this.now()), () => this.fire(slot)) };
      this.slots.set(slot, s);
    }
    // a callback of its own: the same fn added twice runs twice, and each cancel takes one
    const entry = (): void => fn();
    s.fns.add(entry);
    const held = s;
    return {
      cancel: () => {
        if (!held.fns.delete(entry) || held.fns.size > 0 || this.slots.get(slot) !== held) return;
        this.slots.delete(slot);
        this.clearTimer(held.handle);
      },
    };
  }

  /** Steps with a timer waiting (tests). */
  get pending(): number {
    return this.slots.size;
  }

  private fire(slot: number): void {
    const s = this.slots.get(slot);
    if (!s) return;
    this.slots.delete(slot);
    for (const fn of s.fns) fn();
  }
}

/** setTimeout's longest wait (about 24.8 days); a longer one would fire at once. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

const systemGrid = new TimerGrid(
  () => Date.now(),
  (ms, fn) => setTimeout(fn, ms),
  (h) => clearTimeout(h as NodeJS.Timeout),
);

export const systemClock: Clock = {
  now: () => Date.now(),
  coarse(ms, fn) {
    // a month-long wait (a usage limit's reset) is exact: a step is nothing to it, and setTimeout takes no such wait
    return ms > MAX_TIMEOUT_MS ? systemClock.after(ms, fn) : systemGrid.at(ms, fn);
  },
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

/** Checks `done` at once and every `everyMs` until it holds or `withinMs` have passed on the clock; says whether it held. */
export async function until(clock: Clock, done: () => boolean | Promise<boolean>, withinMs: number, everyMs: number): Promise<boolean> {
  const deadline = clock.now() + withinMs;
  for (;;) {
    if (await done()) return true;
    if (clock.now() >= deadline) return false;
    await sleep(clock, everyMs);
  }
}
