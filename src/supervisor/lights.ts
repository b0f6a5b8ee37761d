// Per-window lights (@nerdr_state, @nerdr_light) and the global @nerdr_summary.
// Every set-option repaints every attached client, so updates are sent only on change,
// debounced, and batched into one command line.

import type { AgentState } from '../types.js';
import { command } from '../tmux/quote.js';

// What each kind of light looks like. Users choose with tmux options:
//   @nerdr-glyph-<kind>   the glyph, e.g. '●'
//   @nerdr-color-<kind>   a tmux style after fg=, e.g. 'red,bold' or '#ff8800' or 'colour245'
//   @nerdr-light-bg       the background under every glyph (default black; none: the window's own)
//
// A light brings its own background and attributes: no single colour reads on every bar (green
// vanishes on tmux's default green bar, yellow on oh-my-tmux's light blue current window), and
// a bell's `reverse` (tmux's default window-status-bell-style) would turn the glyph into a block.
// It ends with the style that was in force before it (push-default … default, pop-default), so
// a theme's pill keeps its colours after the light; #[default] alone would drop them.
export const LIGHT_KINDS = ['working', 'background', 'blocked', 'done', 'idle', 'unknown', 'exited', 'stalled'] as const;
export type Kind = (typeof LIGHT_KINDS)[number];

export interface Look {
  glyph: string;
  /** A tmux style list after fg=: a colour, optionally followed by attributes (bold, dim…). */
  color: string;
}

export const DEFAULT_LOOKS: Record<Kind, Look> = {
  working: { glyph: '●', color: 'yellow' },
  background: { glyph: '◐', color: 'cyan' },
  blocked: { glyph: '●', color: 'red,bold' },
  done: { glyph: '●', color: 'green,bold' },
  idle: { glyph: '○', color: 'colour245' },
  unknown: { glyph: '◌', color: 'colour245' },
  exited: { glyph: '✕', color: 'colour240' },
  stalled: { glyph: '⏸', color: 'magenta' },
};

export const glyphOption = (kind: Kind): string => `@nerdr-glyph-${kind}`;
export const colorOption = (kind: Kind): string => `@nerdr-color-${kind}`;
export const LIGHT_BG_OPTION = '@nerdr-light-bg';
/** ANSI black: what terminal palettes draw their colours against (catppuccin's is its surface1). */
export const DEFAULT_LIGHT_BG = 'black';

/** The background the user chose for the lights ('' for none), from `show-options -g` output. */
export function lightBgFrom(options: Record<string, string>): string {
  const v = (options[LIGHT_BG_OPTION] ?? DEFAULT_LIGHT_BG).trim();
  return v === 'none' ? '' : v || DEFAULT_LIGHT_BG;
}

/** The style a light starts from: no inherited attributes (a bell's reverse, blink, bold), its own background. */
function baseStyle(bg: string): string {
  return bg ? `none,bg=${bg}` : 'none';
}

/** Looks from `show-options -g` output (lines `name value`), defaults for what is unset. */
export function looksFromOptions(options: Record<string, string>): Record<Kind, Look> {
  const out = {} as Record<Kind, Look>;
  for (const k of LIGHT_KINDS) {
    out[k] = { glyph: options[glyphOption(k)] || DEFAULT_LOOKS[k].glyph, color: options[colorOption(k)] || DEFAULT_LOOKS[k].color };
  }
  return out;
}

/**
 * The tmux format of a light, as the supervisor puts it in @nerdr_light: the user's colour list
 * comes last, so it can override the background or add attributes. Needs tmux 3.2
 * (push-default/pop-default).
 */
export function tmuxLight(look: Look, bg: string = DEFAULT_LIGHT_BG): string {
  return `#[push-default]#[${baseStyle(bg)},fg=${look.color}]${look.glyph.replace(/#/g, '##')}#[default]#[pop-default]`;
}

/** Parses `tmux show-options -g` output; values may be quoted the tmux way. */
export function parseShowOptions(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^(@nerdr-[\w-]+) (.*)$/.exec(line);
    if (!m) continue;
    let v = m[2]!;
    if (/^".*"$/.test(v)) v = v.slice(1, -1).replace(/\\(.)/g, '$1');
    else if (/^'.*'$/.test(v)) v = v.slice(1, -1);
    out[m[1]!] = v;
  }
  return out;
}


export type LightKind = Kind;

/** The @nerdr_light text of each kind. */
export function glyphsFrom(looks: Record<Kind, Look>, bg: string = DEFAULT_LIGHT_BG): Record<LightKind, string> {
  const out = {} as Record<LightKind, string>;
  for (const k of LIGHT_KINDS) out[k] = tmuxLight(looks[k], bg);
  return out;
}

export const DEFAULT_GLYPHS: Record<LightKind, string> = glyphsFrom(DEFAULT_LOOKS);

export interface WindowLight {
  state: AgentState;
  kind: LightKind;
  /** Extra text after the glyph, e.g. a queue count. Plain text: # is escaped. */
  suffix?: string;
}

export function lightText(light: WindowLight, glyphs: Record<LightKind, string> = DEFAULT_GLYPHS): string {
  const suffix = light.suffix ? light.suffix.replace(/#/g, '##') : '';
  return glyphs[light.kind] + suffix;
}

/** The summary's counts, in the colours of the lights of the same kind. */
const SUMMARY_ORDER: [AgentState & Kind, string][] = [
  ['blocked', '✋'],
  ['done', '✓'],
  ['working', '⏳'],
  ['idle', '○'],
];

/** @nerdr_summary: like a light, on its own background and ending with the style before it. */
export function summaryText(states: Iterable<AgentState>, looks: Record<Kind, Look> = DEFAULT_LOOKS, bg: string = DEFAULT_LIGHT_BG): string {
  const counts = new Map<AgentState, number>();
  for (const s of states) counts.set(s, (counts.get(s) ?? 0) + 1);
  const parts: string[] = [];
  for (const [state, glyph] of SUMMARY_ORDER) {
    const n = counts.get(state);
    if (n) parts.push(`#[${baseStyle(bg)},fg=${looks[state].color}]${glyph}${n}`);
  }
  return parts.length ? `#[push-default]${parts.join(' ')}#[default]#[pop-default] ` : '';
}

export type SendLine = (commands: string[], done: (ok: boolean[]) => void) => void;

/**
 * Window options to keep in tmux: @nerdr_state and @nerdr_light for the status line, and
 * the facts a restarted supervisor needs. Only values that differ from what tmux has are
 * sent, batched into one line, at most every minIntervalMs.
 */
export class LightsWriter {
  private readonly wanted = new Map<string, Map<string, string>>();
  private readonly applied = new Map<string, Map<string, string>>();
  private appliedSummary: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private inFlight = false;
  private lastFlush = 0;
  /** Number of command lines sent, for the benchmark and tests. */
  lines = 0;

  constructor(
    private readonly send: SendLine,
    private readonly debounceMs = 100,
    private readonly minIntervalMs = 250,
    private glyphs: Record<LightKind, string> = DEFAULT_GLYPHS,
  ) {}

  private summaryLooks: Record<Kind, Look> = DEFAULT_LOOKS;
  private summaryBg = DEFAULT_LIGHT_BG;

  set(windowId: string, light: WindowLight): void {
    this.setOption(windowId, '@nerdr_state', light.state);
    this.setOption(windowId, '@nerdr_light', lightText(light, this.glyphs));
  }

  /** Any window option, written with the next batch. */
  setOption(windowId: string, option: string, value: string): void {
    let w = this.wanted.get(windowId);
    if (!w) this.wanted.set(windowId, (w = new Map()));
    if (w.get(option) === value) return;
    w.set(option, value);
    this.schedule();
  }

  setGlyphs(glyphs: Record<LightKind, string>): void {
    this.glyphs = glyphs;
  }

  /** The user's looks and light background, for the lights and the summary. */
  setLooks(looks: Record<Kind, Look>, bg: string = DEFAULT_LIGHT_BG): void {
    this.glyphs = glyphsFrom(looks, bg);
    this.summaryLooks = looks;
    this.summaryBg = bg;
  }

  remove(windowId: string): void {
    this.wanted.delete(windowId);
    this.applied.delete(windowId);
    this.schedule();
  }

  /** Forget what tmux has (after a reconnect or a config reload): everything is re-sent. */
  invalidate(): void {
    this.applied.clear();
    this.appliedSummary = null;
    this.schedule();
  }

  summary(): string {
    return summaryText([...this.wanted.values()].map((w) => (w.get('@nerdr_state') ?? 'unknown') as AgentState), this.summaryLooks, this.summaryBg);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer || this.inFlight) return;
    const wait = Math.max(this.debounceMs, this.lastFlush + this.minIntervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
    this.timer.unref?.();
  }

  private diff(): [string, string, string][] {
    const out: [string, string, string][] = [];
    for (const [win, opts] of this.wanted) {
      const have = this.applied.get(win);
      for (const [opt, value] of opts) if (have?.get(opt) !== value) out.push([win, opt, value]);
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
    this.lastFlush = Date.now();
    this.lines++;
    this.send(cmds, (ok) => {
      this.inFlight = false;
      changes.forEach(([win, opt, value], i) => {
        // a window that vanished fails its set-option and cuts the line short: the rest is
        // retried on the next flush, the vanished one is removed by the window scan
        if (!ok[i] || !this.wanted.has(win)) return;
        let have = this.applied.get(win);
        if (!have) this.applied.set(win, (have = new Map()));
        have.set(opt, value);
      });
      if (sendSummary && ok[ok.length - 1]) this.appliedSummary = summary;
      if (this.diff().length > 0 || this.summary() !== this.appliedSummary) {
        if (ok.every(Boolean)) this.schedule();
        else setTimeout(() => this.schedule(), 500).unref?.();
      }
    });
  }
}
