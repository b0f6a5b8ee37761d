// Evaluate a compiled manifest against one input (manifest-format.md §1.3–1.5).
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
  /** Detection text (§2.1), see text.ts. */
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
  /** A rule whose time over its last `window` evaluations adds up to more than this is disabled. */
  budgetMs?: number;
  window?: number;
  /** Called once when a rule is disabled. */
  onWarning?: (message: string) => void;
  /** Clock (ms), for tests. */
  now?: () => number;
}

/**
 * Protects the caller from a user's slow regex. JS regexes backtrack (Rust's are linear), so a
 * pathological pattern on a big screen could take very long. Regions are capped at 64 KiB; each
 * rule's evaluation time is measured; when the sum of a rule's last `window` (default 20)
 * evaluation times exceeds `budgetMs` (default 50 ms) — one very slow evaluation is enough — the
 * rule is disabled for the life of the guard (i.e. until its manifest is reloaded) and a warning
 * is delivered through `onWarning`. A disabled rule counts as not matching.
 * One guard per loaded manifest: keys are the rules' positions.
 */
export class RuleGuard {
  readonly budgetMs: number;
  readonly window: number;
  private readonly history = new Map<number, number[]>();
  private readonly disabled = new Set<number>();
  private readonly onWarning: (message: string) => void;
  readonly now: () => number;

  constructor(
    private readonly label: string,
    opts: RuleGuardOptions = {},
  ) {
    this.budgetMs = opts.budgetMs ?? 50;
    this.window = opts.window ?? 20;
    this.onWarning = opts.onWarning ?? (() => {});
    this.now = opts.now ?? (() => performance.now());
  }

  isDisabled(index: number): boolean {
    return this.disabled.has(index);
  }

  disabledIndexes(): number[] {
    return [...this.disabled];
  }

  record(rule: CompiledRule, ms: number): void {
    let h = this.history.get(rule.index);
    if (!h) {
      h = [];
      this.history.set(rule.index, h);
    }
    h.push(ms);
    if (h.length > this.window) h.shift();
    const total = h.reduce((a, b) => a + b, 0);
    if (total > this.budgetMs && !this.disabled.has(rule.index)) {
      this.disabled.add(rule.index);
      this.onWarning(
        `${this.label}: rule ${JSON.stringify(rule.id)} disabled: it took ${total.toFixed(1)} ms over its last ` +
          `${h.length} evaluation(s) (budget ${this.budgetMs} ms); simplify its regexes and reload the manifest`,
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

export function evaluate(manifest: Manifest, input: DetectInput, opts: EvaluateOptions = {}): DetectionResult {
  const guard = opts.guard;
  const now = guard ? guard.now : () => performance.now();
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
    const t0 = now();
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
    const ms = now() - t0;
    timings.push({ id: rule.id, index: rule.index, ms });
    guard?.record(rule, ms);
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
