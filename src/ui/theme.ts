// Lights as the dashboard draws them: the same glyphs and colours as the status bar.
//
// Users choose them with tmux options (the TPM plugin documents them):
//   @nerdr-glyph-<kind>   the glyph, e.g. '●'
//   @nerdr-color-<kind>   a tmux style after fg=, e.g. 'red,bold' or '#ff8800' or 'colour245'
// for every kind in LIGHT_KINDS. A light is then `#[fg=<color>]<glyph>#[default]`.

import { tmux } from '../tmux/server.js';

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

/** Looks from `show-options -g` output (lines `name value`), defaults for what is unset. */
export function looksFromOptions(options: Record<string, string>): Record<Kind, Look> {
  const out = {} as Record<Kind, Look>;
  for (const k of LIGHT_KINDS) {
    out[k] = { glyph: options[glyphOption(k)] || DEFAULT_LOOKS[k].glyph, color: options[colorOption(k)] || DEFAULT_LOOKS[k].color };
  }
  return out;
}

/** The tmux format of a light, as the supervisor should put it in @nerdr_light. */
export function tmuxLight(look: Look): string {
  return `#[fg=${look.color}]${look.glyph.replace(/#/g, '##')}#[default]`;
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

/** The looks this tmux server is configured with. */
export async function readLooks(sock: string): Promise<Record<Kind, Look>> {
  const r = await tmux(sock, ['show-options', '-g']);
  return looksFromOptions(r.code === 0 ? parseShowOptions(r.stdout) : {});
}

const BASIC = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

function hex(n: number): string {
  return n.toString(16).padStart(2, '0');
}

/** xterm's 256-colour palette entry as #rrggbb (blessed maps it back to the terminal). */
export function colour256(n: number): string {
  if (n < 16) {
    const base = ['000000', 'cd0000', '00cd00', 'cdcd00', '0000ee', 'cd00cd', '00cdcd', 'e5e5e5', '7f7f7f', 'ff0000', '00ff00', 'ffff00', '5c5cff', 'ff00ff', '00ffff', 'ffffff'];
    return `#${base[n]}`;
  }
  if (n < 232) {
    const i = n - 16;
    const v = (c: number): number => (c === 0 ? 0 : 55 + c * 40);
    return `#${hex(v(Math.floor(i / 36)))}${hex(v(Math.floor(i / 6) % 6))}${hex(v(i % 6))}`;
  }
  const g = 8 + (n - 232) * 10;
  return `#${hex(g)}${hex(g)}${hex(g)}`;
}

/** A tmux colour name as blessed understands it, or null (default, unknown). */
export function blessedColour(c: string): string | null {
  const s = c.trim().toLowerCase();
  if (BASIC.includes(s)) return s;
  const bright = /^bright(\w+)$/.exec(s);
  if (bright && BASIC.includes(bright[1]!)) return `light${bright[1]}`;
  const n = /^colou?r(\d{1,3})$/.exec(s);
  if (n && Number(n[1]) < 256) return colour256(Number(n[1]));
  if (/^#[0-9a-f]{6}$/.test(s)) return s;
  return null;
}

/** Escapes text for a blessed box with tags on. */
export function escapeTags(text: string): string {
  return text.replace(/[{}]/g, (c) => (c === '{' ? '{open}' : '{close}'));
}

/** The light as blessed tags: colour and bold from the look's style list. */
export function tagLight(look: Look): string {
  let open = '';
  let close = '';
  const parts = look.color.split(',');
  const fg = blessedColour(parts[0]!.replace(/^fg=/, ''));
  if (fg) {
    open += `{${fg}-fg}`;
    close = `{/${fg}-fg}` + close;
  }
  if (parts.slice(1).includes('bold')) {
    open += '{bold}';
    close = '{/bold}' + close;
  }
  return open + escapeTags(look.glyph) + close;
}
