// The per-pane probe schedule and agent start/exit decisions, on a fake clock (spec §5.2 adapted).

import { describe, expect, it } from 'vitest';
import { PaneProber, type ProberStep } from '../../../src/detect/prober.js';
import type { Identification } from '../../../src/detect/identify.js';

class Clock {
  t = 1_000_000;
  now = (): number => this.t;
}

const shell: Identification = { agent: null, pid: null, why: 'shell', foreground: 'shell', pgid: 100 };
const other = (pgid = 300): Identification => ({ agent: null, pid: null, why: 'vim', foreground: 'job', pgid });
const agent = (name: string, pgid = 200): Identification => ({ agent: name, pid: pgid, why: name, foreground: 'job', pgid });

/** Runs due probes up to `until`, answering with `answer(now)`; returns every probe time and event. */
function runUntil(p: PaneProber, clock: Clock, until: number, answer: (now: number) => Identification, first: ProberStep) {
  const probes: number[] = [];
  const events: { at: number; type: string; agent: string; reason?: string }[] = [];
  let step = first;
  for (let guard = 0; guard < 10_000; guard++) {
    const at = step.probeAt;
    if (at === null || at > until) break;
    clock.t = Math.max(clock.t, at);
    if (!p.beginProbe()) {
      step = p.step();
      continue;
    }
    probes.push(clock.t);
    step = p.probeResult(answer(clock.t));
    for (const e of step.events) events.push({ at: clock.t, type: e.type, agent: e.agent, ...('reason' in e ? { reason: e.reason } : {}) });
  }
  clock.t = Math.max(clock.t, until);
  return { probes, events, step };
}

describe('PaneProber', () => {
  it('first probe 50 ms after start; a shell alone is probed after 30 s, then twice as long each time up to 4 min', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now });
    const t0 = c.t;
    const r = runUntil(p, c, t0 + 1_000_000, () => shell, p.start());
    expect(r.probes.map((t) => t - t0)).toEqual([50, 30_050, 90_050, 210_050, 450_050, 690_050, 930_050]);
    expect(r.events).toEqual([]);
  });

  it('the backoff starts again at 30 s on output or a foreground change, and never runs within an acquisition window', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now });
    const t0 = c.t;
    runUntil(p, c, t0 + 500_000, () => shell, p.start());
    expect(p.idlePeriod()).toBe(240_000);
    // a line after the long quiet: a window's one probe at once, then the periodic probe 30 s on
    c.t = t0 + 500_000;
    const r = runUntil(p, c, t0 + 600_000, () => shell, p.output());
    expect(r.probes.map((t) => t - t0 - 500_000)).toEqual([0, 30_000, 90_000]);
    // a foreground change: its window's probes (0 … 7.5 s) do not count, then 30 s from the last of them
    const t1 = c.t + 1000;
    c.t = t1;
    const f = runUntil(p, c, t1 + 60_000, () => shell, p.foregroundChanged());
    expect(f.probes.map((t) => t - t1)).toEqual([0, 500, 1000, 1500, 3500, 5500, 7500, 37_500]);
  });

  it('a foreground change probes at once and opens an acquisition window: 0, .5, 1, 1.5, 3.5, 5.5, 7.5 s', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now });
    runUntil(p, c, c.t + 100, () => shell, p.start());
    const t0 = c.t;
    const r = runUntil(p, c, t0 + 20_000, () => other(), p.foregroundChanged());
    expect(r.probes.map((t) => t - t0)).toEqual([0, 500, 1000, 1500, 3500, 5500, 7500]);
  });

  it('output opens a window only after 2 s of quiet, and at most one per 8 s', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now });
    runUntil(p, c, c.t + 100, () => shell, p.start());
    const t0 = c.t;
    let step = p.output(); // quiet before: opens
    expect(step.probeAt).toBe(t0);
    // a lone line: one probe, the window's next waits for more output
    expect(runUntil(p, c, t0 + 1000, () => shell, step).probes.map((t) => t - t0)).toEqual([0]);
    // more output: the probe it was owed (500 ms after the last) is due at once
    c.t = t0 + 1200;
    step = p.output();
    expect(step.probeAt).toBe(t0 + 500);
    expect(runUntil(p, c, t0 + 3900, () => shell, step).probes.map((t) => t - t0)).toEqual([1200]);
    // output that goes on: the window's cadence (2 s steps after its first 1.5 s) until 8 s
    c.t = t0 + 4000;
    step = p.output();
    let r = runUntil(p, c, t0 + 4100, () => shell, step);
    expect(r.probes.map((t) => t - t0)).toEqual([4000]);
    c.t = t0 + 4100;
    step = p.output();
    r = runUntil(p, c, t0 + 9000, () => shell, step);
    expect(r.probes.map((t) => t - t0)).toEqual([6000]);
    // output again at 9 s after 4.9 s of quiet, the window being over → a new one
    c.t = t0 + 9000;
    expect(p.output().probeAt).toBe(t0 + 9000);
    // and 0.1 s later, more output: window still fresh → nothing new, next is the window's cadence
    runUntil(p, c, t0 + 9000, () => shell, p.step());
    c.t = t0 + 9100;
    expect(p.output().probeAt).toBe(t0 + 9500);
  });

  it('a window opened by a foreground change probes on its cadence without output', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now });
    runUntil(p, c, c.t + 100, () => shell, p.start());
    const t0 = c.t;
    p.output(); // a line first: the change still opens a full window
    const r = runUntil(p, c, t0 + 20_000, () => other(), p.foregroundChanged());
    expect(r.probes.map((t) => t - t0)).toEqual([0, 500, 1000, 1500, 3500, 5500, 7500]);
  });

  it('busy output (never 2 s of quiet) does not reopen a window once the first is over', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now });
    const t0 = c.t;
    let step = p.output();
    const probes: number[] = [];
    for (let s = 1; s <= 20; s++) {
      probes.push(...runUntil(p, c, t0 + s * 1000, () => shell, step).probes);
      c.t = t0 + s * 1000;
      step = p.output();
    }
    probes.push(...runUntil(p, c, t0 + 25_000, () => shell, step).probes);
    // a line a second: each probe waits for a line, on the window's cadence (500 ms, 2 s after 1.5 s) until 8 s
    expect(probes.map((t) => t - t0)).toEqual([0, 1000, 2000, 4000, 6000, 8000]);
    expect(p.step().probeAt).toBe(t0 + 8000 + 30_000); // the periodic probe
  });

  it('a user starting claude by hand: agent-start, then 5 s probes; back to the shell: agent-exit', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now });
    runUntil(p, c, c.t + 100, () => shell, p.start());
    const t0 = c.t;
    // claude starts; its process is visible after 700 ms
    const r = runUntil(p, c, t0 + 16_000, (now) => (now - t0 >= 700 ? agent('claude') : shell), p.foregroundChanged());
    expect(r.events).toEqual([{ at: t0 + 1000, type: 'agent-start', agent: 'claude' }]);
    expect(p.agent).toBe('claude');
    expect(r.probes.map((t) => t - t0)).toEqual([0, 500, 1000, 6000, 11_000, 16_000]);
    // user quits: the foreground change probes at once and finds the shell
    const t1 = c.t + 300;
    c.t = t1;
    const q = runUntil(p, c, t1 + 100, () => shell, p.foregroundChanged());
    expect(q.events).toEqual([{ at: t1, type: 'agent-exit', agent: 'claude', reason: 'exited' }]);
    expect(p.agent).toBeNull();
  });

  it('the shell seen on a periodic probe (no foreground notification) also ends the agent', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now, agent: 'claude' });
    const t0 = c.t;
    const r = runUntil(p, c, t0 + 12_000, (now) => (now - t0 < 6000 ? agent('claude') : shell), p.start());
    expect(r.events).toEqual([{ at: t0 + 10_050, type: 'agent-exit', agent: 'claude', reason: 'exited' }]);
  });

  it('a launched agent (agent option) gets no agent-start', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now, agent: 'codex' });
    const r = runUntil(p, c, c.t + 11_000, () => agent('codex', 100), p.start());
    expect(r.events).toEqual([]);
    expect(r.probes).toHaveLength(3);
  });

  it('6 consecutive misses with something else in the foreground → lost; a hit resets the count', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now, agent: 'claude' });
    const t0 = c.t;
    let n = 0;
    const answers = [agent('claude'), other(), other(), other(), agent('claude'), other(), other(), other(), other(), other(), other()];
    const r = runUntil(p, c, t0 + 120_000, () => answers[Math.min(n++, answers.length - 1)]!, p.start());
    expect(r.events).toEqual([{ at: t0 + 50 + 10 * 5000, type: 'agent-exit', agent: 'claude', reason: 'lost' }]);
  });

  it('another agent, or a new run of the same agent in another group, replaces the old one', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now, agent: 'claude' });
    let step = p.start();
    c.t = step.probeAt!;
    expect(p.beginProbe()).toBe(true);
    step = p.probeResult(agent('claude', 200));
    c.t = step.probeAt!;
    p.beginProbe();
    step = p.probeResult(agent('codex', 300));
    expect(step.events.map((e) => [e.type, e.agent])).toEqual([['agent-exit', 'claude'], ['agent-start', 'codex']]);
    c.t = step.probeAt!;
    p.beginProbe();
    step = p.probeResult(agent('codex', 400));
    expect(step.events.map((e) => `${e.type} ${e.agent} ${'reason' in e ? e.reason : ''}`)).toEqual(['agent-exit codex replaced', 'agent-start codex ']);
  });

  it('one probe at a time; a foreground change during a probe probes again right after', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now });
    let step = p.start();
    c.t = step.probeAt!;
    expect(p.beginProbe()).toBe(true);
    expect(p.beginProbe()).toBe(false);
    expect(p.step().probeAt).toBeNull();
    c.t += 10;
    expect(p.foregroundChanged().probeAt).toBeNull();
    c.t += 10;
    step = p.probeResult(shell);
    expect(step.probeAt).toBe(c.t);
    expect(p.beginProbe()).toBe(true);
    step = p.probeFailed();
    expect(step.probeAt).toBe(c.t + 500); // still inside the window opened by the change
  });

  it('not due yet: beginProbe refuses', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now });
    p.start();
    expect(p.beginProbe()).toBe(false);
  });

  it('release drops the agent and keeps it away for 1 s', () => {
    const c = new Clock();
    const p = new PaneProber({ clock: c.now, agent: 'claude' });
    const t0 = c.t;
    const rel = p.release();
    expect(rel.events).toMatchObject([{ type: 'agent-exit', agent: 'claude', reason: 'released' }]);
    expect(rel.probeAt).toBe(t0 + 1000);
    // a probe inside the suppression finds claude but ignores it
    c.t = t0 + 500;
    p.foregroundChanged();
    expect(p.beginProbe()).toBe(true);
    expect(p.probeResult(agent('claude')).events).toEqual([]);
    c.t = t0 + 1000;
    expect(p.beginProbe()).toBe(true);
    expect(p.probeResult(agent('claude')).events).toMatchObject([{ type: 'agent-start', agent: 'claude' }]);
  });
});
