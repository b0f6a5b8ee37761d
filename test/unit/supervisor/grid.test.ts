// The clock's grid (src/supervisor/clock.ts): coarse timers due on one step share one real timer,
// so a hundred windows' quiet timers and the lights' next flush cost one wake-up; none fires
// early, none more than a step late, and a step whose timers were all cancelled costs nothing.
import { describe, expect, it } from 'vitest';
import { GRID_MIN_MS, GRID_STEP_MS, TimerGrid, afterOrCoarse, type Clock, type Timer } from '../../../src/supervisor/clock.js';
import { LightsWriter } from '../../../src/supervisor/lights.js';
import { FakeTime } from './harness.js';

/** FakeTime with a grid over its own timers, counting the real timers the grid sets. */
class GridTime extends FakeTime implements Clock {
  realTimers = 0;
  readonly grid = new TimerGrid(
    () => this.t,
    (ms, fn) => {
      this.realTimers++;
      return this.after(ms, fn);
    },
    (h) => (h as Timer).cancel(),
  );

  coarse(ms: number, fn: () => void): Timer {
    return this.grid.at(ms, fn);
  }
}

describe('TimerGrid', () => {
  it('timers due within one step share one real timer and run at the step, in the order added', () => {
    const time = new GridTime(1_000_001);
    const fired: [string, number][] = [];
    time.coarse(3000, () => fired.push(['a', time.t]));
    time.advance(10);
    time.coarse(3000, () => fired.push(['b', time.t]));
    time.advance(100);
    time.coarse(2950, () => fired.push(['c', time.t]));
    expect(time.realTimers).toBe(1);
    time.advance(5000);
    const step = Math.ceil((1_000_001 + 3000) / GRID_STEP_MS) * GRID_STEP_MS;
    expect(fired).toEqual([['a', step], ['b', step], ['c', step]]);
  });

  it('never fires before its wait, and at most one step after', () => {
    const time = new GridTime(1_000_123);
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const checks: { due: number; at: number | null }[] = [];
    for (let i = 0; i < 200; i++) {
      time.advance(Math.floor(rand() * 40));
      const c = { due: time.t + Math.floor(rand() * 10_000), at: null as number | null };
      checks.push(c);
      time.coarse(c.due - time.t, () => (c.at = time.t));
    }
    time.advance(20_000);
    for (const c of checks) {
      expect(c.at).not.toBeNull();
      expect(c.at!).toBeGreaterThanOrEqual(c.due);
      expect(c.at! - c.due).toBeLessThan(GRID_STEP_MS);
    }
  });

  it('a step whose timers are all cancelled has its real timer cleared; one left keeps it', () => {
    const time = new GridTime(1_000_000);
    const fired: string[] = [];
    const a = time.coarse(3000, () => fired.push('a'));
    const b = time.coarse(3000, () => fired.push('b'));
    b.cancel();
    expect(time.grid.pending).toBe(1);
    a.cancel();
    expect(time.grid.pending).toBe(0);
    expect(time.pending()).toBe(0);
    // the same function twice is two timers: cancelling one keeps the other
    const f = () => fired.push('f');
    const f1 = time.coarse(3000, f);
    time.coarse(3000, f);
    f1.cancel();
    a.cancel(); // a second cancel of a gone timer changes nothing
    time.advance(4000);
    expect(fired).toEqual(['f']);
  });

  it('a timer added by a callback of the step it is due in runs too', () => {
    const time = new GridTime(1_000_000);
    const fired: string[] = [];
    time.coarse(3000, () => {
      fired.push('first');
      time.coarse(0, () => fired.push('added'));
    });
    time.advance(4000);
    expect(fired).toEqual(['first', 'added']);
  });

  it('afterOrCoarse: a wait under GRID_MIN_MS is exact, a longer one is on the grid', () => {
    const time = new GridTime(1_000_001);
    const at: Record<string, number> = {};
    afterOrCoarse(time, GRID_MIN_MS - 1, () => (at.short = time.t));
    afterOrCoarse(time, GRID_MIN_MS, () => (at.long = time.t));
    time.advance(10_000);
    expect(at.short).toBe(1_000_001 + GRID_MIN_MS - 1);
    expect(at.long! % GRID_STEP_MS).toBe(0);
    expect(at.long!).toBeGreaterThanOrEqual(1_000_001 + GRID_MIN_MS);
    // a clock without a grid waits exactly
    const plain = new FakeTime(1_000_001);
    let t = 0;
    afterOrCoarse(plain, 3001, () => (t = plain.t));
    plain.advance(5000);
    expect(t).toBe(1_000_001 + 3001);
  });
});

describe('LightsWriter on a clock with a grid', () => {
  it('a flush held back by the interval goes out on the step, with the lights the step’s other timers changed', () => {
    const time = new GridTime(1_000_000);
    const sent: string[][] = [];
    const w = new LightsWriter((cmds, done) => (sent.push(cmds), done(cmds.map(() => true))), 0, 250, undefined, time);
    w.set('@1', { state: 'working', kind: 'working' });
    time.advance(0);
    expect(sent).toHaveLength(1);
    // within the interval: held back, on the grid
    time.advance(100);
    w.set('@2', { state: 'working', kind: 'working' });
    // a window's quiet timer due on the same step (made first, so its step's timer fires first either way)
    time.coarse(100, () => w.set('@1', { state: 'idle', kind: 'idle' }));
    time.advance(1000);
    expect(sent).toHaveLength(2);
    const line = sent[1]!.join('\n');
    expect(line).toContain('@2');
    expect(line).toMatch(/'@1' '@nerdr_state' 'idle'/);
    w.dispose();
  });

  it('a change waits at most one step for its flush, and flushes on the grid are a step apart', () => {
    const time = new GridTime(1_000_037);
    const flushes: { at: number; cmds: string[] }[] = [];
    const w = new LightsWriter((cmds, done) => (flushes.push({ at: time.t, cmds }), done(cmds.map(() => true))), 0, GRID_STEP_MS, undefined, time);
    let seed = 11;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const changes: { at: number; win: string; value: string }[] = [];
    for (let i = 0; i < 300; i++) {
      time.advance(Math.floor(rand() * 300));
      const c = { at: time.t, win: `@${i % 7}`, value: `v${i}` };
      changes.push(c);
      w.setOption(c.win, '@nerdr_facts', c.value);
    }
    time.advance(1000);
    for (const c of changes) {
      // the first flush at or after the change that carries its window's option
      const f = flushes.find((x) => x.at >= c.at && x.cmds.some((cmd) => cmd.includes(`'${c.win}'`)));
      expect(f, `${c.win}=${c.value}`).toBeDefined();
      expect(f!.at - c.at).toBeLessThanOrEqual(GRID_STEP_MS);
    }
    const onGrid = flushes.filter((f) => f.at % GRID_STEP_MS === 0).map((f) => f.at);
    for (let i = 1; i < onGrid.length; i++) expect(onGrid[i]! - onGrid[i - 1]!).toBeGreaterThanOrEqual(GRID_STEP_MS);
    w.dispose();
  });

  it('the flush after the interval is not on the grid when the writer was idle', () => {
    const time = new GridTime(1_000_000);
    const sent: number[] = [];
    const w = new LightsWriter((cmds, done) => (sent.push(time.t), done(cmds.map(() => true))), 0, 250, undefined, time);
    time.advance(1000);
    w.set('@1', { state: 'working', kind: 'working' });
    time.advance(0);
    expect(sent).toEqual([1_001_000]);
    expect(time.realTimers).toBe(0);
    w.dispose();
  });
});
