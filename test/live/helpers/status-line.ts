// The status line as a terminal draws it: a client of the tmux server under test runs inside a
// pane of a second, outer tmux server, and `capture-pane -e` of that pane gives the cells with
// their SGR colours. Option values say what a format asks for; only this says what is seen
// (a bell's reverse, a #[default] that drops a theme's colours, green on green).
//
//   const outer = await startOuterClient(env, { cols: 300, rows: 12 });   // attached to session `user`
//   const cells = await outer.statusCells();                             // the bottom row, parsed
//   await outer.stop();

import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { colour256 } from '../../../src/ui/theme.js';
import { pidAlive, run, type LiveEnv } from './env.js';

export interface Cell {
  ch: string;
  /** #rrggbb, or 'default' (the terminal's own). */
  fg: string;
  bg: string;
  bold: boolean;
  reverse: boolean;
}

const NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

/** A tmux colour name (red, brightred, colour245, #rrggbb) as #rrggbb in xterm's palette. */
export function tmuxColourHex(name: string): string {
  const s = name.trim().toLowerCase();
  if (NAMES.includes(s)) return colour256(NAMES.indexOf(s));
  const bright = /^bright(\w+)$/.exec(s);
  if (bright && NAMES.includes(bright[1]!)) return colour256(8 + NAMES.indexOf(bright[1]!));
  const n = /^colou?r(\d{1,3})$/.exec(s);
  if (n) return colour256(Number(n[1]));
  if (/^#[0-9a-f]{6}$/.test(s)) return s;
  throw new Error(`not a colour tmux names: ${name}`);
}

const hex2 = (n: number): string => n.toString(16).padStart(2, '0');

/** Parses one captured row (capture-pane -e -p) into cells. */
export function parseSgrLine(line: string): Cell[] {
  const cells: Cell[] = [];
  let st = { fg: 'default', bg: 'default', bold: false, reverse: false };
  // OSC (hyperlinks, titles) carry no cells
  const text = line.replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '');
  for (let i = 0; i < text.length; ) {
    if (text[i] === '\x1b' && text[i + 1] === '[') {
      const end = text.slice(i + 2).search(/[@-~]/);
      if (end < 0) break;
      const final = text[i + 2 + end];
      const params = text.slice(i + 2, i + 2 + end);
      i += 3 + end;
      if (final !== 'm') continue;
      const p = (params === '' ? '0' : params).split(/[;:]/).map((x) => (x === '' ? 0 : Number(x)));
      for (let k = 0; k < p.length; k++) {
        const v = p[k]!;
        if (v === 0) st = { fg: 'default', bg: 'default', bold: false, reverse: false };
        else if (v === 1) st.bold = true;
        else if (v === 22) st.bold = false;
        else if (v === 7) st.reverse = true;
        else if (v === 27) st.reverse = false;
        else if (v >= 30 && v <= 37) st.fg = colour256(v - 30);
        else if (v >= 90 && v <= 97) st.fg = colour256(v - 90 + 8);
        else if (v === 39) st.fg = 'default';
        else if (v >= 40 && v <= 47) st.bg = colour256(v - 40);
        else if (v >= 100 && v <= 107) st.bg = colour256(v - 100 + 8);
        else if (v === 49) st.bg = 'default';
        else if (v === 38 || v === 48 || v === 58) {
          let c = 'default';
          if (p[k + 1] === 5) {
            c = colour256(p[k + 2]!);
            k += 2;
          } else if (p[k + 1] === 2) {
            c = `#${hex2(p[k + 2]!)}${hex2(p[k + 3]!)}${hex2(p[k + 4]!)}`;
            k += 4;
          }
          if (v === 38) st.fg = c;
          else if (v === 48) st.bg = c;
        }
      }
      continue;
    }
    if (text[i] === '\x1b') {
      i += 2;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    i += ch.length;
    cells.push({ ch, ...st });
  }
  return cells;
}

/** What the eye gets: reverse swaps the colours; the terminal's defaults are taken as xterm's. */
export function seen(cell: Cell): { fg: string; bg: string } {
  const fg = cell.fg === 'default' ? '#e5e5e5' : cell.fg;
  const bg = cell.bg === 'default' ? '#000000' : cell.bg;
  return cell.reverse ? { fg: bg, bg: fg } : { fg, bg };
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** WCAG contrast ratio of two #rrggbb colours (1: the same, 21: black on white). */
export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((m, n) => n - m);
  return (x! + 0.05) / (y! + 0.05);
}

/** The cells as text, for messages. */
export const cellText = (cells: Cell[]): string => cells.map((c) => c.ch).join('');

export interface OuterClient {
  /** The bottom row of the outer pane: the inner client's status line. */
  statusCells(): Promise<Cell[]>;
  stop(): Promise<void>;
}

/** An outer private tmux server whose only pane runs `tmux -L <env.server> attach -t <session>`. */
export async function startOuterClient(env: LiveEnv, opts: { cols: number; rows: number; session?: string }): Promise<OuterClient> {
  const name = `nerdr-test-outer-${randomBytes(6).toString('hex')}`;
  const t = async (...args: string[]): Promise<string> => {
    const r = await run('tmux', ['-L', name, '-f', '/dev/null', ...args], { env: env.env, timeoutMs: 20_000 });
    if (r.code !== 0) throw new Error(`outer tmux ${args.join(' ')} failed (${r.code}): ${r.stderr.trim()}`);
    return r.stdout;
  };
  await t('new-session', '-d', '-s', 'outer', '-x', String(opts.cols), '-y', String(opts.rows));
  const [socketPath = '', pidText = ''] = (await t('display', '-p', '-t', 'outer', '#{socket_path}\t#{pid}')).trim().split('\t');
  const pid = Number(pidText);
  const stop = async (): Promise<void> => {
    await t('kill-server').catch(() => undefined);
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline && pid > 0 && pidAlive(pid)) await new Promise((r) => setTimeout(r, 25));
    if (socketPath && !(pid > 0 && pidAlive(pid))) rmSync(socketPath, { force: true });
  };
  try {
    // 256 colours and no status line of its own: the pane is the inner client's whole screen
    await t('set-option', '-g', 'default-terminal', 'screen-256color');
    await t('set-option', '-g', 'status', 'off');
    // tmux < 3.3 sizes a session without clients by default-size (80x24), not by -x/-y
    await t('set-option', '-g', 'default-size', `${opts.cols}x${opts.rows}`);
    await t('resize-window', '-t', 'outer', '-x', String(opts.cols), '-y', String(opts.rows));
    // the inner client learns the outer terminal's features after it attached (3.3+ asks it)
    // and redraws in RGB: give it RGB from the start, so no capture catches the first drawing
    await env.tmuxOk('set-option', '-as', 'terminal-features', ',screen-256color:RGB');
    await t('respawn-pane', '-k', '-t', 'outer', `env -u TMUX tmux -L ${env.server} attach -t '=${opts.session ?? 'user'}'`);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    async statusCells() {
      const rows = (await t('capture-pane', '-e', '-p', '-t', 'outer')).replace(/\n$/, '').split('\n');
      return parseSgrLine(rows[rows.length - 1] ?? '');
    },
    stop,
  };
}
