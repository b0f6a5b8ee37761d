// Lights as the dashboard draws them: the same glyphs and colours as the status bar.
//
// Users choose them with tmux options (the TPM plugin documents them):
//   @nerdr-glyph-<kind>   the glyph, e.g. '●'
//   @nerdr-color-<kind>   a tmux style after fg=, e.g. 'red,bold' or '#ff8800' or 'colour245'
// for every kind in LIGHT_KINDS. In the status line a light also has its own background
// (@nerdr-light-bg, looks.ts); the dashboard draws on the terminal's.

import { tmux } from '../tmux/server.js';

import { looksFromOptions, parseShowOptions, type Kind, type Look } from '../looks.js';
import { visible } from '../text.js';

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
  // the palette index itself: blessed's own hex matching gives #8a8a8a (colour245, idle's grey)
  // as yellow, the colour of working
  if (n && Number(n[1]) < 256) return String(Number(n[1]));
  if (/^#[0-9a-f]{6}$/.test(s)) return s;
  return null;
}

/** Escapes text for a blessed box with tags on: its control characters shown, its braces literal. */
export function escapeTags(text: string): string {
  return visible(text).replace(/[{}]/g, (c) => (c === '{' ? '{open}' : '{close}'));
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
