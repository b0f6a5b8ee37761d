// Per-window lights (@nerdr_state, @nerdr_light) and the global @nerdr_summary.
// Every set-option repaints every attached client, so updates are sent only on change,
// debounced, and batched into one command line. Each value carries its offline look too, which
// tmux shows by itself while no supervisor's control client is attached (src/tmux/supervised.ts).

import type { AgentState } from '../types.js';
import { systemClock, type Clock, type Timer } from './clock.js';
import { command } from '../tmux/quote.js';
import { attachedCheck, whenAttached } from '../tmux/supervised.js';
import { HIDDEN_SESSION } from './discover.js';

import { LIGHT_KINDS, DEFAULT_LIGHT_BG, DEFAULT_LOOKS, DEFAULT_OFFLINE, baseStyle, tmuxLight, type Kind, type Look } from '../looks.js';

export type LightKind = Kind;

/** The @nerdr_light text of each kind. */
export function glyphsFrom(looks: Record<Kind, Look>, bg: string = DEFAULT_LIGHT_BG): Record<LightKind, string> {
  const out = {} as Record<LightKind, string>;
  for (const k of LIGHT_KINDS) out[k] = tmuxLight(looks[k], bg);
  return out;
}

export const DEFAULT_GLYPHS: Record<LightKind, string> = glyphsFrom(DEFAULT_LOOKS);

/** Each kind's glyph in the offline colour: what a light shows while no supervisor watches. */
export function offlineGlyphsFrom(looks: Record<Kind, Look>, offline: Look = DEFAULT_OFFLINE, bg: string = DEFAULT_LIGHT_BG): Record<LightKind, string> {
  const out = {} as Record<LightKind, string>;
  for (const k of LIGHT_KINDS) out[k] = tmuxLight({ glyph: looks[k].glyph, color: offline.color }, bg);
  return out;
}

export const DEFAULT_OFFLINE_GLYPHS: Record<LightKind, string> = offlineGlyphsFrom(DEFAULT_LOOKS);

/** Whether nerdr's supervisor watches, as tmux tells it: its control client is attached to the hidden session. */
export const SUPERVISED = attachedCheck(HIDDEN_SESSION);

export interface WindowLight {
  state: AgentState;
  kind: LightKind;
  /** Extra text after the glyph, e.g. a queue count. Plain text: # is escaped. */
  suffix?: string;
}

/** @nerdr_light: the light while a supervisor watches, its glyph in the offline colour while none does. */
export function lightText(light: WindowLight, glyphs: Record<LightKind, string> = DEFAULT_GLYPHS, offline: Record<LightKind, string> = DEFAULT_OFFLINE_GLYPHS): string {
  const suffix = light.suffix ? light.suffix.replace(/#/g, '##') : '';
  return whenAttached(SUPERVISED, glyphs[light.kind] + suffix, offline[light.kind] + suffix);
}

/** The summary's counts, in the colours of the lights of the same kind. */
export const SUMMARY_ORDER: [AgentState & Kind, string][] = [
  ['blocked', '✋'],
  ['done', '✓'],
  ['working', '⏳'],
  ['limited', '◷'],
  ['idle', '○'],
];

/** @nerdr_summary: like a light, on its own background and ending with the style before it. */
export function summaryText(states: Iterable<AgentState>, looks: Record<Kind, Look> = DEFAULT_LOOKS, bg: string = DEFAULT_LIGHT_BG): string {
  const counts = new Map<AgentState, number>();
  for (const s of states) counts.set(s, (counts.get(s) ?? 0) + 1);
  return summaryFromCounts(counts, looks, bg);
}

/** summaryText from the windows counted by state. */
export function summaryFromCounts(counts: ReadonlyMap<AgentState, number>, looks: Record<Kind, Look> = DEFAULT_LOOKS, bg: string = DEFAULT_LIGHT_BG): string {
  const parts: string[] = [];
  for (const [state, glyph] of SUMMARY_ORDER) {
    const n = counts.get(state);
    if (n) parts.push(`#[${baseStyle(bg)},fg=${looks[state].color}]${glyph}${n}`);
  }
  return parts.length ? `#[push-default]${parts.join(' ')}#[default]#[pop-default] ` : '';
}

/** What the summary says while no supervisor watches: `nerdr ✗`, in the offline look. */
export function offlineSummaryText(offline: Look = DEFAULT_OFFLINE, bg: string = DEFAULT_LIGHT_BG): string {
  return `#[push-default]#[${baseStyle(bg)},fg=${offline.color}]nerdr ${offline.glyph.replace(/#/g, '##')}#[default]#[pop-default] `;
}

/**
 * @nerdr_summary: the counts (and what follows them, the fleet's) while a supervisor watches,
 * the offline mark while none does; empty when nerdr has nothing to show.
 */
export function supervisedSummary(live: string, windows: number, offline: Look = DEFAULT_OFFLINE, bg: string = DEFAULT_LIGHT_BG): string {
  if (live === '' && windows === 0) return '';
  return whenAttached(SUPERVISED, live, offlineSummaryText(offline, bg));
}

export type SendLine = (commands: string[], done: (ok: boolean[]) => void) => void;

/**
 * Window options to keep in tmux: @nerdr_state and @nerdr_light for the status line, and
 * the facts a restarted supervisor needs. Only values that differ from what tmux has are
 * sent, batched into one line: at once when the last went minIntervalMs ago or more, else
 * minIntervalMs after the last (or at the clock's next grid step, see schedule()).
 */
export class LightsWriter {
  private readonly wanted = new Map<string, Map<string, string>>();
  private readonly applied = new Map<string, Map<string, string>>();
  private appliedSummary: string | null = null;
  private timer: Timer | null = null;
  private inFlight = false;
  private lastFlush = 0;
  /** Number of command lines sent, for the benchmark and tests. */
  lines = 0;
  /** Per window and option: how often its wanted value changed, and who waits for tmux to have one. */
  private readonly versions = new Map<string, number>();
  private readonly waiters = new Map<string, { version: number; done: (ok: boolean) => void }[]>();
  /** Windows whose wanted options tmux may not have yet: a flush looks at these only, not at every window. */
  private readonly dirty = new Set<string>();
  /** summary() until a window's state, the looks or the suffix change. */
  private summaryCache: string | null = null;
  /**
   * The windows counted by the @nerdr_state they want, kept as it changes: a summary after a
   * state change costs a look at the few states, not at every window (101 of them, 4 times a
   * second, in the scale bench).
   */
  private readonly stateCounts = new Map<AgentState, number>();
  /** @nerdr_light's text by kind and suffix, until the looks change: a window's light is set on every evaluation. */
  private readonly lightTexts = new Map<string, string>();

  constructor(
    private readonly send: SendLine,
    private readonly debounceMs = 100,
    private readonly minIntervalMs = 250,
    private glyphs: Record<LightKind, string> = DEFAULT_GLYPHS,
    private readonly clock: Clock = systemClock,
  ) {}

  private offlineGlyphs: Record<LightKind, string> = DEFAULT_OFFLINE_GLYPHS;
  private summaryLooks: Record<Kind, Look> = DEFAULT_LOOKS;
  private summaryBg = DEFAULT_LIGHT_BG;
  private offline: Look = DEFAULT_OFFLINE;
  private summarySuffix = '';

  set(windowId: string, light: WindowLight): void {
    this.setOption(windowId, '@nerdr_state', light.state);
    const key = `${light.kind}\n${light.suffix ?? ''}`;
    let text = this.lightTexts.get(key);
    if (text === undefined) {
      text = lightText(light, this.glyphs, this.offlineGlyphs);
      // a suffix is a queue count and a mark: a few kinds of each; bounded all the same
      if (this.lightTexts.size >= 256) this.lightTexts.clear();
      this.lightTexts.set(key, text);
    }
    this.setOption(windowId, '@nerdr_light', text);
  }

  /** Any window option, written with the next batch. */
  setOption(windowId: string, option: string, value: string): void {
    let w = this.wanted.get(windowId);
    if (!w) {
      this.wanted.set(windowId, (w = new Map()));
      this.summaryCache = null; // one window more
    }
    const was = w.get(option);
    if (was === value) return;
    w.set(option, value);
    this.dirty.add(windowId);
    if (option === '@nerdr_state') {
      if (was !== undefined) this.count(was as AgentState, -1);
      this.count(value as AgentState, 1);
      this.summaryCache = null;
    }
    const key = `${windowId} ${option}`;
    this.versions.set(key, (this.versions.get(key) ?? 0) + 1);
    this.schedule();
  }

  /**
   * Calls `done(true)` once tmux has the option's value as it is wanted now (or a later one):
   * what the hook spool waits for before it deletes an event it applied. `done(false)` when the
   * window goes first.
   */
  whenApplied(windowId: string, option: string, done: (ok: boolean) => void): void {
    const want = this.wanted.get(windowId)?.get(option);
    if (want === undefined) return done(false);
    if (this.applied.get(windowId)?.get(option) === want) return done(true);
    const key = `${windowId} ${option}`;
    let list = this.waiters.get(key);
    if (!list) this.waiters.set(key, (list = []));
    list.push({ version: this.versions.get(key) ?? 0, done });
  }

  private settleWaiters(windowId: string, option: string, version: number | null): void {
    const key = `${windowId} ${option}`;
    const list = this.waiters.get(key);
    if (!list) return;
    const ready = version === null ? list : list.filter((w) => w.version <= version);
    const rest = version === null ? [] : list.filter((w) => w.version > version);
    if (rest.length) this.waiters.set(key, rest);
    else this.waiters.delete(key);
    for (const w of ready) w.done(version !== null);
  }

  private count(state: AgentState, by: number): void {
    const n = (this.stateCounts.get(state) ?? 0) + by;
    if (n > 0) this.stateCounts.set(state, n);
    else this.stateCounts.delete(state);
  }

  setGlyphs(glyphs: Record<LightKind, string>): void {
    this.glyphs = glyphs;
    this.lightTexts.clear();
  }

  /** The user's looks and light background, for the lights and the summary. */
  setLooks(looks: Record<Kind, Look>, bg: string = DEFAULT_LIGHT_BG, offline: Look = DEFAULT_OFFLINE): void {
    this.glyphs = glyphsFrom(looks, bg);
    this.offlineGlyphs = offlineGlyphsFrom(looks, offline, bg);
    this.lightTexts.clear();
    this.summaryLooks = looks;
    this.summaryBg = bg;
    this.offline = offline;
    this.summaryCache = null;
  }

  remove(windowId: string): void {
    for (const option of this.wanted.get(windowId)?.keys() ?? []) this.settleWaiters(windowId, option, null);
    const state = this.wanted.get(windowId)?.get('@nerdr_state');
    if (state !== undefined) this.count(state as AgentState, -1);
    this.wanted.delete(windowId);
    this.applied.delete(windowId);
    this.dirty.delete(windowId);
    this.summaryCache = null;
    this.schedule();
  }

  /** Forget what tmux has (after a reconnect or a config reload): everything is re-sent. */
  invalidate(): void {
    this.applied.clear();
    this.appliedSummary = null;
    for (const w of this.wanted.keys()) this.dirty.add(w);
    this.schedule();
  }

  /** Text after the summary (the fleet's `#{E:@nerdr_fleet}` once hosts are configured). */
  setSummarySuffix(suffix: string): void {
    if (suffix === this.summarySuffix) return;
    this.summarySuffix = suffix;
    this.summaryCache = null;
    this.schedule();
  }

  summary(): string {
    if (this.summaryCache !== null) return this.summaryCache;
    // a window with options but no state yet counts as unknown
    let stated = 0;
    for (const n of this.stateCounts.values()) stated += n;
    const counts = stated === this.wanted.size ? this.stateCounts : new Map(this.stateCounts).set('unknown', (this.stateCounts.get('unknown') ?? 0) + this.wanted.size - stated);
    this.summaryCache = supervisedSummary(summaryFromCounts(counts, this.summaryLooks, this.summaryBg) + this.summarySuffix, this.wanted.size, this.offline, this.summaryBg);
    return this.summaryCache;
  }

  dispose(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer || this.inFlight) return;
    const wait = Math.max(this.debounceMs, this.lastFlush + this.minIntervalMs - this.clock.now());
    const run = (): void => {
      this.timer = null;
      this.flush();
    };
    // On a clock with a grid, a flush held back by minIntervalMs goes out at the grid's next
    // step instead, at the end of that step's turn: the coarse timers due on the same step
    // (windows going idle) change their lights first and go out with it, in one wake-up
    // (docs/performance.md, "One grid"). A change waits at most a step (GRID_STEP_MS, the
    // supervisor's minIntervalMs too), as it did for minIntervalMs; flushes on the grid are a
    // step apart, and one at once comes only minIntervalMs after the last.
    if (wait > 0 && this.clock.coarse) this.timer = this.clock.coarse(1, () => (this.timer = this.clock.after(0, run)));
    else this.timer = this.clock.after(wait, run);
  }

  private diff(): [string, string, string, number][] {
    const out: [string, string, string, number][] = [];
    for (const win of this.dirty) {
      const opts = this.wanted.get(win);
      const have = this.applied.get(win);
      let pending = false;
      for (const [opt, value] of opts ?? []) {
        if (have?.get(opt) === value) continue;
        out.push([win, opt, value, this.versions.get(`${win} ${opt}`) ?? 0]);
        pending = true;
      }
      if (!pending) this.dirty.delete(win);
    }
    return out;
  }

  private flush(): void {
    const changes = this.diff();
    const cmds = changes.map(([win, opt, value]) => command('set-option', '-w', '-t', win, opt, value));
    const summary = this.summary();
    const sendSummary = summary !== this.appliedSummary;
    if (sendSummary) cmds.push(command('set-option', '-g', '@nerdr_summary', summary));
    if (cmds.length === 0) return;
    this.inFlight = true;
    this.lastFlush = this.clock.now();
    this.lines++;
    this.send(cmds, (ok) => {
      this.inFlight = false;
      changes.forEach(([win, opt, value, version], i) => {
        // a window that vanished fails its set-option and cuts the line short: the rest is
        // retried on the next flush, the vanished one is removed by the window scan
        if (!ok[i] || !this.wanted.has(win)) return;
        let have = this.applied.get(win);
        if (!have) this.applied.set(win, (have = new Map()));
        have.set(opt, value);
        this.settleWaiters(win, opt, version);
      });
      if (sendSummary && ok[ok.length - 1]) this.appliedSummary = summary;
      if (this.diff().length > 0 || this.summary() !== this.appliedSummary) {
        if (ok.every(Boolean)) this.schedule();
        else this.clock.after(500, () => this.schedule());
      }
    });
  }
}
