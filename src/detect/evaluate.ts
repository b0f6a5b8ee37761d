// Evaluate a compiled manifest against one input (docs/manifest-format.md, "Gates").
//
// Every rule is evaluated in file order; the matching rule with the highest priority wins and a tie
// goes to the rule written first. No match → idle with fallback_reason
// "default_known_agent_idle_fallback". The function is pure apart from the optional RuleGuard,
// which measures rule times and disables rules that are too slow (see RuleGuard below).

import type { EngineState } from '../types.js';
import { rustLines } from './regex.js';
import { extractRegion, regionKeepsHead, ScreenLayout } from './regions.js';
import type { CompiledGate, CompiledRule, Manifest } from './schema.js';

export const FALLBACK_REASON = 'default_known_agent_idle_fallback';

/** Region texts longer than this are cut (the bottom is kept, or the top for top_non_empty_lines). */
export const MAX_REGION_CHARS = 64 * 1024;

export interface DetectInput {
  /** Detection text, see text.ts. */
  text: string;
  oscTitle?: string;
  oscProgress?: string;
}

export interface RuleMatch {
  id: string;
  index: number;
  priority: number;
  state: EngineState;
  region: string;
}

export interface RuleTiming {
  id: string;
  index: number;
  ms: number;
}

export interface DetectionResult {
  state: EngineState;
  /** Winning rule id, or null when no rule matched. */
  rule: string | null;
  /** The winning rule in full (priority, region…), or null. */
  winner: RuleMatch | null;
  /** "default_known_agent_idle_fallback" when no rule matched, else null. */
  fallbackReason: typeof FALLBACK_REASON | null;
  visibleIdle: boolean;
  visibleBlocker: boolean;
  visibleWorking: boolean;
  skipStateUpdate: boolean;
  /** Every matching rule, in file order. */
  matches: RuleMatch[];
  /** Whether the manifest has any rule with state idle. */
  hasIdleRules: boolean;
  /** Time spent per evaluated rule (region + matchers), file order. */
  timings: RuleTiming[];
  /** Rules skipped because the guard disabled them (ids). */
  disabledRules: string[];
}

// ---------- slow-rule guard ----------

export interface RuleGuardOptions {
  /** An evaluation of one rule slower than this counts as slow. */
  slowMs?: number;
  /** This many slow evaluations among the last `window` disable the rule… */
  slowCount?: number;
  window?: number;
  /** …and so does a single evaluation slower than this. */
  hardMs?: number;
  /** A disabled rule gets another chance after this long. */
  retryAfterMs?: number;
  /** Called when a rule is disabled. */
  onWarning?: (message: string) => void;
  /** Clock (ms), for tests. */
  now?: () => number;
  /**
   * What a rule's time is measured with (ms). Default: the process's CPU time, so a supervisor
   * that was stopped (SIGSTOP, a laptop asleep) or preempted in the middle of an evaluation does
   * not see a rule that "took" seconds and disable it. With only `now` given (tests), `now`.
   * Reading it is a system call, so by default a rule is timed with the wall clock, which is
   * never below its CPU time, and with `cost` only after a wall time over `slowMs`: only what
   * `cost` measured counts as slow.
   */
  cost?: () => number;
  /** The cheap first measure (ms), for tests; by default the wall clock (or `cost`, when a test gives clocks). */
  wall?: () => number;
}

/**
 * Protects the caller from a user's slow regex. JS regexes backtrack (Rust's are linear), so a
 * pathological pattern on a big screen could take very long. Regions are capped at 64 KiB and
 * each rule's evaluation time is measured. A rule is disabled when 3 of its last 20
 * evaluations took over 20 ms each, or one took over 500 ms; a warning goes to `onWarning`
 * and a disabled rule counts as not matching. Wall time is noisy on a loaded machine (a GC
 * pause or a preempted process looks like a slow rule), hence several samples, and a disabled
 * rule is tried again after 5 minutes. One guard per loaded manifest: keys are the rules'
 * positions.
 */
export class RuleGuard {
  readonly slowMs: number;
  readonly slowCount: number;
  readonly window: number;
  readonly hardMs: number;
  readonly retryAfterMs: number;
  private readonly history = new Map<number, number[]>();
  /** Per rule: how many of its history's times are over slowMs (kept as the history moves). */
  private readonly slowIn = new Map<number, number>();
  /** rule index → when it was disabled */
  private readonly disabled = new Map<number, number>();
  private readonly onWarning: (message: string) => void;
  readonly now: () => number;
  readonly cost: () => number;
  /** The first, cheap measure: the wall clock by default, `cost` when a test gives clocks. */
  readonly quick: () => number;
  /** Rules whose last quick time was over slowMs: their next evaluation is timed with `cost`. */
  private readonly suspect = new Set<number>();
  /** clockFor's two answers, made once. */
  private readonly exactClock: { clock: () => number; exact: boolean };
  private readonly quickClock: { clock: () => number; exact: boolean };

  constructor(
    private readonly label: string,
    opts: RuleGuardOptions = {},
  ) {
    this.slowMs = opts.slowMs ?? 20;
    this.slowCount = opts.slowCount ?? 3;
    this.window = opts.window ?? 20;
    this.hardMs = opts.hardMs ?? 500;
    this.retryAfterMs = opts.retryAfterMs ?? 5 * 60_000;
    this.onWarning = opts.onWarning ?? (() => {});
    this.now = opts.now ?? (() => performance.now());
    this.cost = opts.cost ?? opts.now ?? cpuMs;
    this.quick = opts.wall ?? (opts.cost || opts.now ? this.cost : () => performance.now());
    this.exactClock = { clock: this.cost, exact: true };
    this.quickClock = { clock: this.quick, exact: false };
  }

  /** The clock to time this rule's next evaluation with, and whether that is `cost` (one of two fixed objects). */
  clockFor(index: number): { readonly clock: () => number; readonly exact: boolean } {
    return this.quick === this.cost || this.suspect.has(index) ? this.exactClock : this.quickClock;
  }

  isDisabled(index: number): boolean {
    const at = this.disabled.get(index);
    if (at === undefined) return false;
    if (this.now() - at < this.retryAfterMs) return true;
    this.disabled.delete(index); // another chance, with a clean record
    this.history.delete(index);
    this.slowIn.delete(index);
    return false;
  }

  disabledIndexes(): number[] {
    return [...this.disabled.keys()];
  }

  record(rule: CompiledRule, ms: number, exact = true): void {
    if (this.disabled.has(rule.index)) return;
    if (!exact && ms > this.slowMs) {
      // the wall clock says slow: a stopped or preempted process, or a slow rule; `cost` decides
      this.suspect.add(rule.index);
      return;
    }
    if (exact && ms <= this.slowMs) this.suspect.delete(rule.index);
    let h = this.history.get(rule.index);
    if (!h) {
      h = [];
      this.history.set(rule.index, h);
    }
    h.push(ms);
    let slow = (this.slowIn.get(rule.index) ?? 0) + (ms > this.slowMs ? 1 : 0);
    if (h.length > this.window && h.shift()! > this.slowMs) slow--;
    this.slowIn.set(rule.index, slow);
    if (ms > this.hardMs || slow >= this.slowCount) {
      this.disabled.set(rule.index, this.now());
      const why = ms > this.hardMs ? `one evaluation took ${ms.toFixed(1)} ms` : `${slow} of its last ${h.length} evaluations took over ${this.slowMs} ms`;
      this.onWarning(
        `${this.label}: rule ${JSON.stringify(rule.id)} disabled for ${Math.round(this.retryAfterMs / 1000)} s: ${why}; simplify its regexes and reload the manifest`,
      );
    }
  }
}

// ---------- gates ----------

interface RegionText {
  text: string;
  lower: string | undefined;
  lines: string[] | undefined;
}

function lowerOf(r: RegionText): string {
  if (r.lower === undefined) r.lower = r.text.toLowerCase();
  return r.lower;
}

function linesOf(r: RegionText): string[] {
  if (r.lines === undefined) r.lines = rustLines(r.text);
  return r.lines;
}

export function gateMatches(g: CompiledGate, r: RegionText): boolean {
  if (g.contains.length > 0) {
    const hay = lowerOf(r);
    for (const needle of g.contains) if (!hay.includes(needle)) return false;
  }
  for (const re of g.regex) if (!re.test(r.text)) return false;
  if (g.lineRegex.length > 0) {
    const lines = linesOf(r);
    for (const re of g.lineRegex) if (!lines.some((l) => re.test(l))) return false;
  }
  for (const c of g.all) if (!gateMatches(c, r)) return false;
  if (g.any.length > 0 && !g.any.some((c) => gateMatches(c, r))) return false;
  for (const c of g.not) if (gateMatches(c, r)) return false;
  return true;
}

/** Convenience for tests: does a gate match a plain string region. */
export function gateMatchesText(g: CompiledGate, text: string): boolean {
  return gateMatches(g, { text, lower: undefined, lines: undefined });
}

function capRegion(text: string, keepHead: boolean): string {
  if (text.length <= MAX_REGION_CHARS) return text;
  return keepHead ? text.slice(0, MAX_REGION_CHARS) : text.slice(text.length - MAX_REGION_CHARS);
}

// ---------- evaluation ----------

export interface EvaluateOptions {
  guard?: RuleGuard;
}

/** The process's CPU time in ms (user + system): it does not advance while the process is stopped. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const UNGUARDED = { clock: () => performance.now(), exact: false };

export function evaluate(manifest: Manifest, input: DetectInput, opts: EvaluateOptions = {}): DetectionResult {
  const guard = opts.guard;
  const layout = new ScreenLayout(input.text);
  const regionInput = { layout, oscTitle: input.oscTitle ?? '', oscProgress: input.oscProgress ?? '' };
  const regionCache = new Map<string, RegionText>();
  const matches: RuleMatch[] = [];
  const timings: RuleTiming[] = [];
  const disabledRules: string[] = [];
  let best: CompiledRule | null = null;

  for (const rule of manifest.rules) {
    if (guard?.isDisabled(rule.index)) {
      disabledRules.push(rule.id);
      continue;
    }
    const { clock, exact } = guard ? guard.clockFor(rule.index) : UNGUARDED;
    const t0 = clock();
    let region = regionCache.get(rule.regionName);
    if (!region) {
      region = {
        text: capRegion(extractRegion(rule.region, regionInput), regionKeepsHead(rule.region)),
        lower: undefined,
        lines: undefined,
      };
      regionCache.set(rule.regionName, region);
    }
    const matched = gateMatches(rule.gate, region);
    const ms = clock() - t0;
    timings.push({ id: rule.id, index: rule.index, ms });
    guard?.record(rule, ms, exact);
    if (!matched) continue;
    matches.push({ id: rule.id, index: rule.index, priority: rule.priority, state: rule.state, region: rule.regionName });
    if (best === null || rule.priority > best.priority) best = rule;
  }

  if (best === null) {
    return {
      state: 'idle',
      rule: null,
      winner: null,
      fallbackReason: FALLBACK_REASON,
      visibleIdle: false,
      visibleBlocker: false,
      visibleWorking: false,
      skipStateUpdate: false,
      matches,
      hasIdleRules: manifest.hasIdleRules,
      timings,
      disabledRules,
    };
  }
  const w = best;
  return {
    state: w.state,
    rule: w.id,
    winner: { id: w.id, index: w.index, priority: w.priority, state: w.state, region: w.regionName },
    fallbackReason: null,
    visibleIdle: w.visibleIdle && w.state === 'idle',
    visibleBlocker: w.visibleBlocker && w.state === 'blocked',
    visibleWorking: w.visibleWorking && w.state === 'working',
    skipStateUpdate: w.skipStateUpdate,
    matches,
    hasIdleRules: manifest.hasIdleRules,
    timings,
    disabledRules,
  };
}
