// When to look at a pane's processes, and what the answers mean (docs/identify.md, "When to probe").
// Pure: the clock is injected and the prober owns no timer. One per watched pane.
//
//   const prober = new PaneProber({ clock: Date.now });            // or { agent: 'claude' } when launched as one
//   let step = prober.start();                                      // first probe 50 ms after the pane is watched
//   // inputs (each returns a Step):
//   step = prober.output();                // %output for the pane (cheap: call it on every chunk)
//   step = prober.foregroundChanged();     // #{pane_current_command} changed (tmux subscription)
//   // keep ONE timer per pane at step.probeAt; when it fires:
//   if (prober.beginProbe()) {
//     const id = await probePane(panePid);                          // procfs.ts
//     step = prober.probeResult(id);                                // or prober.probeFailed()
//   } else step = prober.step();
//   for (const e of step.events) …  // 'agent-start' → arbiter for e.agent, processStart(); 'agent-exit' → processExit()
//
// Timing (constants in DEFAULT_PROBER_TIMING):
//   * agent known: probe every 5 s, and at once when the foreground command changes;
//   * no agent: probe at once on a foreground change, every 30 s otherwise (twice as long after
//     each such probe with nothing new since, up to 4 min: a pane that waits for hours costs
//     a probe per 4 min, not per 30 s; any output or foreground change starts again at 30 s), and during an
//     "acquisition window" opened by a foreground change or by output after ≥2 s of quiet (at most one
//     window per 8 s): at its start, every 500 ms for its first 1.5 s, then every 2 s until 8 s. A
//     window opened by output probes again only once more output came (a program starting draws):
//     a quiet pane's lone line costs one probe, not seven;
//   * exit: the pane's shell is back in the foreground → 'agent-exit' (reason 'exited') at once;
//     lost: 6 probes in a row that do not find the agent while something else is in the foreground →
//     'agent-exit' (reason 'lost'); another agent (or a new run of the same agent, i.e. another
//     foreground process group) → 'agent-exit' (reason 'replaced') then 'agent-start'.
//   * release(): the agent is dropped and not re-acquired for 1 s (herdr's manual release).

import type { Identification } from './identify.js';

export interface ProberTiming {
  /** First probe after start(). */
  firstProbeMs: number;
  /** Re-probe period while an agent is known. */
  knownPeriodMs: number;
  /** Re-probe period without an agent (outside acquisition windows). */
  idlePeriodMs: number;
  /** It doubles after each such probe that found the pane as before, up to this. */
  idleMaxPeriodMs: number;
  /** Acquisition window length, fast phase length and cadences. */
  windowMs: number;
  windowFastMs: number;
  windowFastStepMs: number;
  windowSlowStepMs: number;
  /** Output opens a new window only after this much quiet (and once the previous window is over). */
  quietMs: number;
  /** Probes in a row without the agent (something else in the foreground) before it is dropped. */
  missesToLose: number;
  /** After release(), the released agent is not re-acquired for this long. */
  releaseSuppressMs: number;
}

export const DEFAULT_PROBER_TIMING: Readonly<ProberTiming> = {
  firstProbeMs: 50,
  knownPeriodMs: 5000,
  idlePeriodMs: 30000,
  idleMaxPeriodMs: 240000,
  windowMs: 8000,
  windowFastMs: 1500,
  windowFastStepMs: 500,
  windowSlowStepMs: 2000,
  quietMs: 2000,
  missesToLose: 6,
  releaseSuppressMs: 1000,
};

export type ProberEvent =
  | { type: 'agent-start'; agent: string; pid: number | null; why: string }
  | { type: 'agent-exit'; agent: string; reason: 'exited' | 'lost' | 'replaced' | 'released'; why: string };

export interface ProberStep {
  events: ProberEvent[];
  /** When the next probe is due (clock time), or null while one is in flight. */
  probeAt: number | null;
}

export interface ProberOptions {
  clock: () => number;
  /** The agent already known to run (a window launched as `nerdr new claude`): no 'agent-start' for it. */
  agent?: string | null;
  timing?: Partial<ProberTiming>;
}

export class PaneProber {
  private readonly clock: () => number;
  private readonly t: ProberTiming;
  private current: string | null;
  /** Foreground group of the known agent (a new group with the same agent is a new run). */
  private currentPgid: number | null = null;
  private misses = 0;
  private lastProbeAt = -Infinity;
  private immediateAt: number | null = null;
  private windowAt: number | null = null;
  /** The window was opened by output: its later probes wait for more output. */
  private windowByOutput = false;
  private lastOutputAt = -Infinity;
  private inFlight = false;
  /** A foreground change arrived while a probe was in flight: probe again after it. */
  private dirty = false;
  private suppressed: { agent: string; until: number } | null = null;
  /** Output or a foreground change since the last probe. */
  private inputSinceProbe = false;
  /** Periodic probes in a row without an agent and with nothing new before them (the backoff). */
  private idleStreak = 0;
  /** The last answer, for `nerdr explain`. */
  last: { at: number; id: Identification } | null = null;

  constructor(opts: ProberOptions) {
    this.clock = opts.clock;
    this.t = { ...DEFAULT_PROBER_TIMING, ...opts.timing };
    this.current = opts.agent ?? null;
  }

  /** The agent believed to run in the pane now. */
  get agent(): string | null {
    return this.current;
  }

  get consecutiveMisses(): number {
    return this.misses;
  }

  /** The pane is now watched. */
  start(): ProberStep {
    this.immediateAt = this.clock() + this.t.firstProbeMs;
    return this.step();
  }

  /** Output arrived from the pane. */
  output(): ProberStep {
    const now = this.clock();
    const quiet = now - this.lastOutputAt >= this.t.quietMs;
    this.lastOutputAt = now;
    this.inputSinceProbe = true;
    this.idleStreak = 0;
    if (this.current === null && quiet && (this.windowAt === null || now - this.windowAt >= this.t.windowMs)) this.openWindow(now, true);
    return this.step();
  }

  /** The pane's foreground command changed (#{pane_current_command}). */
  foregroundChanged(): ProberStep {
    const now = this.clock();
    if (this.inFlight) this.dirty = true;
    this.immediateAt = now;
    this.inputSinceProbe = true;
    this.idleStreak = 0;
    if (this.current === null) this.openWindow(now, false);
    return this.step();
  }

  /** Manual release (herdr pane.release_agent): drop the agent, do not take it back for 1 s. */
  release(): ProberStep {
    const events: ProberEvent[] = [];
    const now = this.clock();
    if (this.current !== null) {
      events.push({ type: 'agent-exit', agent: this.current, reason: 'released', why: 'released by a report' });
      this.suppressed = { agent: this.current, until: now + this.t.releaseSuppressMs };
      this.drop();
      this.immediateAt = now + this.t.releaseSuppressMs;
    }
    return { events, probeAt: this.nextProbeAt() };
  }

  /** The next deadline without any new input. */
  step(): ProberStep {
    return { events: [], probeAt: this.nextProbeAt() };
  }

  /** Timer fired: true when a probe should run now (it is then in flight until probeResult/probeFailed). */
  beginProbe(): boolean {
    if (this.inFlight) return false;
    const at = this.nextProbeAt();
    if (at === null || at > this.clock()) return false;
    this.inFlight = true;
    this.dirty = false;
    return true;
  }

  /** The probe could not run (unexpected error): try again on the usual schedule. */
  probeFailed(): ProberStep {
    this.inFlight = false;
    this.lastProbeAt = this.clock();
    this.immediateAt = this.dirty ? this.lastProbeAt : null;
    return this.step();
  }

  /** What the probe found. */
  probeResult(id: Identification): ProberStep {
    const now = this.clock();
    const previous = this.lastProbeAt;
    const input = this.inputSinceProbe;
    this.inFlight = false;
    this.lastProbeAt = now;
    this.inputSinceProbe = false;
    this.immediateAt = this.dirty ? now : null;
    this.dirty = false;
    this.last = { at: now, id };
    const events: ProberEvent[] = [];
    if (this.suppressed && now >= this.suppressed.until) this.suppressed = null;
    const found = id.agent !== null && !(this.suppressed && this.suppressed.agent === id.agent) ? id.agent : null;

    if (this.current !== null) {
      if (found === this.current && (this.currentPgid === null || id.pgid === null || id.pgid === this.currentPgid)) {
        this.misses = 0;
        this.currentPgid = id.pgid ?? this.currentPgid;
      } else if (found !== null) {
        events.push({ type: 'agent-exit', agent: this.current, reason: 'replaced', why: id.why });
        this.drop();
        this.acquire(found, id, events);
      } else if (id.foreground === 'shell') {
        events.push({ type: 'agent-exit', agent: this.current, reason: 'exited', why: id.why });
        this.drop();
        this.openWindow(now, false); // the user is likely to start something again
      } else {
        this.misses++;
        if (this.misses >= this.t.missesToLose) {
          events.push({ type: 'agent-exit', agent: this.current, reason: 'lost', why: `${this.misses} probes without it: ${id.why}` });
          this.drop();
        }
      }
    } else if (found !== null) {
      this.acquire(found, id, events);
    }
    // the backoff: a periodic probe (not the first, none of a window) with nothing new before it
    const inWindow = this.windowAt !== null && now - this.windowAt <= this.t.windowMs;
    if (this.current === null && events.length === 0 && !input && Number.isFinite(previous) && !inWindow) this.idleStreak++;
    else this.idleStreak = 0;
    return { events, probeAt: this.nextProbeAt() };
  }

  private acquire(agent: string, id: Identification, events: ProberEvent[]): void {
    this.current = agent;
    this.currentPgid = id.pgid;
    this.misses = 0;
    this.windowAt = null;
    events.push({ type: 'agent-start', agent, pid: id.pid, why: id.why });
  }

  private openWindow(now: number, byOutput: boolean): void {
    this.windowAt = now;
    this.windowByOutput = byOutput;
  }

  private drop(): void {
    this.current = null;
    this.currentPgid = null;
    this.misses = 0;
  }

  /** The periodic probe's wait without an agent: doubled per quiet probe in a row, capped. */
  idlePeriod(): number {
    return Math.min(this.t.idlePeriodMs * 2 ** Math.min(this.idleStreak, 16), Math.max(this.t.idleMaxPeriodMs, this.t.idlePeriodMs));
  }

  /** Clock time of the next probe; null while one is in flight. */
  nextProbeAt(): number | null {
    if (this.inFlight) return null;
    const t = this.t;
    const candidates: number[] = [];
    if (this.immediateAt !== null) candidates.push(this.immediateAt);
    if (this.current !== null) {
      candidates.push(this.lastProbeAt + t.knownPeriodMs);
    } else {
      candidates.push(this.lastProbeAt + this.idlePeriod());
      const w = this.windowAt;
      if (w !== null) {
        let next: number | null;
        if (this.lastProbeAt < w) next = w;
        else {
          const age = this.lastProbeAt - w;
          next = this.lastProbeAt + (age < t.windowFastMs ? t.windowFastStepMs : t.windowSlowStepMs);
          if (next > w + t.windowMs) next = null;
          // opened by output, and none since the last probe: the processes that printed were seen
          else if (this.windowByOutput && this.lastOutputAt <= this.lastProbeAt) next = null;
        }
        if (next !== null) candidates.push(next);
      }
    }
    const finite = candidates.filter((c) => Number.isFinite(c));
    // never probed yet and nothing asked for one: the periodic probe counts from now
    if (finite.length === 0) return this.clock();
    return Math.min(...finite);
  }
}
