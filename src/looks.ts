// How nerdr shows state to people, the same everywhere: the status bar (supervisor/lights.ts),
// the dashboard and the review panel (ui/), the demo guide and the CLI's tables.

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
export const LIGHT_KINDS = ['working', 'background', 'blocked', 'done', 'idle', 'unknown', 'limited', 'exited', 'stalled', 'hibernated'] as const;
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
  // at its usage limit until the reset (docs/lifecycle.md): a clock face, in no colour of the others
  limited: { glyph: '◷', color: 'blue,bold' },
  exited: { glyph: '✕', color: 'colour240' },
  stalled: { glyph: '⏸', color: 'magenta' },
  hibernated: { glyph: 'z', color: 'blue' },
};

/**
 * How nerdr looks while no supervisor watches (tmux decides it by itself: src/tmux/supervised.ts):
 * each light keeps its glyph in this colour, and the summary becomes `nerdr` and this glyph.
 * Not a light kind: no agent is ever in it. Options @nerdr-glyph-offline, @nerdr-color-offline.
 */
export const DEFAULT_OFFLINE: Look = { glyph: '✗', color: 'colour245' };

export const glyphOption = (kind: Kind | 'offline'): string => `@nerdr-glyph-${kind}`;
export const colorOption = (kind: Kind | 'offline'): string => `@nerdr-color-${kind}`;
export const LIGHT_BG_OPTION = '@nerdr-light-bg';
/** ANSI black: what terminal palettes draw their colours against (catppuccin's is its surface1). */
export const DEFAULT_LIGHT_BG = 'black';

/** The background the user chose for the lights ('' for none), from `show-options -g` output. */
export function lightBgFrom(options: Record<string, string>): string {
  const v = (options[LIGHT_BG_OPTION] ?? DEFAULT_LIGHT_BG).trim();
  return v === 'none' ? '' : v || DEFAULT_LIGHT_BG;
}

/** The style a light starts from: no inherited attributes (a bell's reverse, blink, bold), its own background. */
export function baseStyle(bg: string): string {
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

/** The offline look from `show-options -g` output, the default for what is unset. */
export function offlineLookFrom(options: Record<string, string>): Look {
  return { glyph: options[glyphOption('offline')] || DEFAULT_OFFLINE.glyph, color: options[colorOption('offline')] || DEFAULT_OFFLINE.color };
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


/** A duration as a short age: 42s, 7m, 3h05m. */
export function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

/**
 * When a usage limit resets, for people, in local time: "15:00 (in 2h05m)", "Dec 5 15:00 (in
 * 2d3h)", "unknown" when the agent gave no time nerdr can read.
 */
export function resetWhen(resetAt: number | null | undefined, now: number): string {
  if (resetAt === null || resetAt === undefined || !Number.isFinite(resetAt)) return 'unknown';
  const d = new Date(resetAt);
  const n = new Date(now);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const sameDay = d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate();
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getMonth()];
  const day = sameDay ? hm : `${month} ${d.getDate()}${d.getFullYear() !== n.getFullYear() ? ` ${d.getFullYear()}` : ''} ${hm}`;
  const left = resetAt - now;
  const rel = left <= 0 ? 'now' : left >= 86_400_000 ? `in ${Math.floor(left / 86_400_000)}d${Math.floor((left % 86_400_000) / 3_600_000)}h` : `in ${age(left)}`;
  return `${day} (${rel})`;
}
