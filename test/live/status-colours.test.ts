// Live: nerdr's lights as the status line draws them, on tmux's default theme, catppuccin (the
// native recipe of docs/tmux.md) and oh-my-tmux, with and without a window's bell flag.
//
// The server under test is a LiveEnv; a client of it runs in a pane of a second, outer server,
// and the outer pane is captured with its colours (helpers/status-line.ts). Every light must be
// drawn in its own colour (not swapped by the bell style's reverse), readable on what is under it,
// and leave the rest of the window's entry as the theme draws it without a light.
//
// The themes are reduced to the options and formats they really set, with their real option
// names: catppuccin v2.3.0's catppuccin_tmux.conf ("basic" windows) and utils/status_module.conf,
// oh-my-tmux's _apply_theme for its default colours. NERDR_CATPPUCCIN_DIR=<a catppuccin/tmux
// checkout> loads the real catppuccin instead.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_GLYPHS } from '../../src/supervisor/lights.js';
import { DEFAULT_LOOKS, LIGHT_KINDS, type Kind } from '../../src/looks.js';
import { LIGHT_PREFIX, SUMMARY_PREFIX } from '../../src/tmux/status.js';
import { REPO_ROOT, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { cellText, contrast, seen, startOuterClient, tmuxColourHex, type Cell, type OuterClient } from './helpers/status-line.js';

const SHORT: Record<Kind, string> = { working: 'wo', background: 'ba', blocked: 'bl', done: 'do', idle: 'id', unknown: 'un', limited: 'li', exited: 'ex', stalled: 'st', hibernated: 'hi' };
const GLYPHS = new Set(Object.values(DEFAULT_LOOKS).map((l) => l.glyph));
const SUMMARY_GLYPHS: Record<string, Kind> = { '✋': 'blocked', '✓': 'done', '⏳': 'working', '○': 'idle' };
/** Below this (WCAG ratio, xterm's palette) a glyph is a smudge, not a light. */
const MIN_CONTRAST = 2;

const CATPPUCCIN_RECIPE = `
set -g @catppuccin_window_text         ' #{?@nerdr_light,#{E:@nerdr_light} ,}#W'
set -g @catppuccin_window_current_text ' #{?@nerdr_light,#{E:@nerdr_light} ,}#W'
`;
const CATPPUCCIN_STATUS = `
set -g status-right '#{E:@catppuccin_status_application}#{E:@catppuccin_status_nerdr}'
set -g status-right-length 100
`;

/** catppuccin v2.3.0 reduced: its mocha colours, option defaults and the formats it builds from them. */
function catppuccinStandIn(dir: string): string {
  mkdirSync(path.join(dir, 'utils'), { recursive: true });
  mkdirSync(path.join(dir, 'status'), { recursive: true });
  writeFileSync(
    path.join(dir, 'utils', 'status_module.conf'),
    `set -ogqF "@catppuccin_status_\${MODULE_NAME}_icon_fg" "#{E:@thm_crust}"
set -ogqF "@catppuccin_status_\${MODULE_NAME}_text_fg" "#{E:@thm_fg}"
set -gqF "@catppuccin_status_\${MODULE_NAME}_icon_bg" "#{@catppuccin_\${MODULE_NAME}_color}"
set -gF "@catppuccin_status_\${MODULE_NAME}" "#[fg=#{@catppuccin_status_\${MODULE_NAME}_icon_bg}]#{@catppuccin_status_left_separator}"
set -agF "@catppuccin_status_\${MODULE_NAME}" "#[fg=#{@catppuccin_status_\${MODULE_NAME}_icon_fg},bg=#{@catppuccin_status_\${MODULE_NAME}_icon_bg}]#{@catppuccin_\${MODULE_NAME}_icon}"
set -agF "@catppuccin_status_\${MODULE_NAME}" "#{@catppuccin_status_middle_separator}"
set -agF "@catppuccin_status_\${MODULE_NAME}" "#[fg=#{@catppuccin_status_\${MODULE_NAME}_text_fg},bg=#{E:@catppuccin_status_module_text_bg}]"
set -ag "@catppuccin_status_\${MODULE_NAME}" "#{E:@catppuccin_\${MODULE_NAME}_text}"
set -agF "@catppuccin_status_\${MODULE_NAME}" "#[fg=#{E:@catppuccin_status_module_text_bg}]#{@catppuccin_status_right_separator}"
`,
  );
  writeFileSync(
    path.join(dir, 'status', 'application.conf'),
    `%hidden MODULE_NAME="application"
set -ogq "@catppuccin_\${MODULE_NAME}_icon" "A "
set -ogqF "@catppuccin_\${MODULE_NAME}_color" "#{E:@thm_maroon}"
set -ogq "@catppuccin_\${MODULE_NAME}_text" " #{pane_current_command}"
source "${dir}/utils/status_module.conf"
`,
  );
  return `
set -g @thm_fg "#cdd6f4"
set -g @thm_mantle "#181825"
set -g @thm_crust "#11111b"
set -g @thm_surface_0 "#313244"
set -g @thm_surface_1 "#45475a"
set -g @thm_overlay_2 "#9399b2"
set -g @thm_mauve "#cba6f7"
set -g @thm_yellow "#f9e2af"
set -g @thm_maroon "#eba0ac"
set -g @thm_lavender "#b4befe"
set -ogq @catppuccin_window_text " #T"
set -ogq @catppuccin_window_current_text " #T"
set -ogq @catppuccin_window_number "#I"
set -ogq @catppuccin_window_current_number "#I"
set -ogq @catppuccin_window_text_color "#{@thm_surface_0}"
set -ogq @catppuccin_window_number_color "#{@thm_overlay_2}"
set -ogq @catppuccin_window_current_text_color "#{@thm_surface_1}"
set -ogq @catppuccin_window_current_number_color "#{@thm_mauve}"
set -ogq @catppuccin_status_left_separator "["
set -ogq @catppuccin_status_middle_separator ""
set -ogq @catppuccin_status_right_separator "] "
set -ogq @catppuccin_status_module_text_bg "#{@thm_surface_0}"
set -gF status-style "bg=#{@thm_mantle},fg=#{@thm_fg}"
set -gF window-status-activity-style "bg=#{@thm_lavender},fg=#{@thm_crust}"
set -gF window-status-bell-style "bg=#{@thm_yellow},fg=#{@thm_crust}"
set -g @_ctp_w_number_style "#[fg=#{@thm_crust},bg=#{@catppuccin_window_number_color}]"
set -g @_ctp_w_text_style "#[fg=#{@thm_fg},bg=#{@catppuccin_window_text_color}]"
set -gF window-status-format "#{E:@_ctp_w_number_style} #{@catppuccin_window_number}"
set -agF window-status-format " "
set -agF window-status-format "#{E:@_ctp_w_text_style}#{@catppuccin_window_text} "
set -g @_ctp_w_number_style "#[fg=#{@thm_crust},bg=#{@catppuccin_window_current_number_color}]"
set -g @_ctp_w_text_style "#[fg=#{@thm_fg},bg=#{@catppuccin_window_current_text_color}]"
set -gF window-status-current-format "#{E:@_ctp_w_number_style} #{@catppuccin_window_current_number}"
set -agF window-status-current-format " "
set -agF window-status-current-format "#{E:@_ctp_w_text_style}#{@catppuccin_window_current_text} "
set -ug @_ctp_w_number_style
set -ug @_ctp_w_text_style
source "${dir}/status/application.conf"
`;
}

/** oh-my-tmux's default theme as its _apply_theme sets it (status-justify left, no powerline separators). */
const OH_MY_TMUX = `
set -g status-style 'fg=#8a8a8a,bg=#080808,none'
setw -g window-status-style 'fg=#8a8a8a,bg=#080808,none'
setw -g window-status-current-style 'fg=#080808,bg=#00afff,bold'
setw -g window-status-activity-style 'fg=default,bg=default,underscore'
setw -g window-status-bell-style 'fg=#ffff00,bg=default,blink,bold'
setw -g window-status-last-style 'fg=#00afff,bg=default,none'
setw -g window-status-separator ' '
setw -g window-status-format '#[fg=#080808,bg=#080808,none]#[fg=#8a8a8a,bg=#080808,none]#{?window_last_flag,#[fg=#00afff],}#{?window_bell_flag,#[fg=#ffff00],}#{?window_bell_flag,#[none],}#{?window_bell_flag,#[blink],}#{?window_bell_flag,#[bold],}#I #W#[none]#[fg=#080808,bg=#080808]'
setw -g window-status-current-format '#[fg=#080808,bg=#00afff,none]#[fg=#080808,bg=#00afff,bold] #I #W #[fg=#00afff,bg=#080808]'
set -g status-right '#[fg=#8a8a8a,bg=#080808,none] %R #[fg=#e4e4e4,bg=#d70000,none] #{username} #[fg=#080808,bg=#e4e4e4,bold] #{hostname} '
set -g status-right-length 100
`;

interface Theme {
  name: string;
  /** The config the user's tmux loads before nerdr runs. */
  config(dir: string): string;
  /** The formats read the light themselves (nerdr must not prefix them). */
  native: boolean;
}

const THEMES: Theme[] = [
  { name: "tmux's default", config: () => 'set -g status-right-length 100\n', native: false },
  {
    name: 'catppuccin (the native recipe)',
    config: (dir) => {
      const real = process.env.NERDR_CATPPUCCIN_DIR;
      const theme = real ? `run '${real}/catppuccin.tmux'\n` : catppuccinStandIn(dir);
      const moduleDir = real ?? dir;
      return `${CATPPUCCIN_RECIPE}${theme}set -g @nerdr-catppuccin-dir '${moduleDir}'\nsource '${path.join(REPO_ROOT, 'tmux', 'catppuccin', 'nerdr.conf')}'\n${CATPPUCCIN_STATUS}`;
    },
    native: true,
  },
  { name: 'oh-my-tmux', config: () => OH_MY_TMUX, native: false },
];

const style = (c: Cell | undefined): string => (c ? `${c.fg}/${c.bg}${c.bold ? '/bold' : ''}${c.reverse ? '/reverse' : ''}` : 'none');

/** The cells of a window's name in the status line, and the light glyph before it (if any). */
function entry(cells: Cell[], name: string): { name: Cell[]; glyph: Cell | undefined } | null {
  const text = cellText(cells);
  const at = text.indexOf(name);
  if (at < 0 || text.indexOf(name, at + 1) >= 0) return null;
  // cells and code points line up (one cell per code point in the captured text)
  const start = [...text.slice(0, at)].length;
  const nameCells = cells.slice(start, start + [...name].length);
  let glyph: Cell | undefined;
  for (let i = start - 1; i >= Math.max(0, start - 8); i--) {
    if (GLYPHS.has(cells[i]!.ch)) {
      glyph = cells[i];
      break;
    }
  }
  return { name: nameCells, glyph };
}

/** Why a glyph is not a readable light of this kind, or null when it is. */
function unreadable(glyph: Cell | undefined, kind: Kind, where: string): string | null {
  if (!glyph) return `${where}: no light drawn`;
  const want = tmuxColourHex(DEFAULT_LOOKS[kind].color.split(',')[0]!);
  const s = seen(glyph);
  if (s.fg !== want) return `${where}: the ${kind} light is drawn ${s.fg} on ${s.bg} (${style(glyph)}), not in its colour ${want}`;
  if (s.fg === s.bg || contrast(s.fg, s.bg) < MIN_CONTRAST) return `${where}: the ${kind} light is ${s.fg} on ${s.bg}: contrast ${contrast(s.fg, s.bg).toFixed(2)}`;
  return null;
}

async function windowId(env: LiveEnv, name: string, cmd: string): Promise<string> {
  return (await env.tmuxOk('new-window', '-d', '-P', '-F', '#{window_id}', '-t', '=user:', '-n', name, cmd)).trim();
}

/** The bell flag of a window in session user (the flag is the session's: agent windows are linked into _nerdr too). */
async function bellFlag(env: LiveEnv, win: string): Promise<boolean> {
  return (await env.tmuxOk('list-windows', '-t', '=user', '-F', '#{window_id} #{window_bell_flag}')).split('\n').includes(`${win} 1`);
}

async function option(env: LiveEnv, name: string): Promise<string> {
  return (await env.tmuxOk('show-options', '-gv', name)).replace(/\n$/, '');
}

describe.skipIf(!tmuxAvailable)('the lights on the rendered status line', () => {
  // each theme's servers, supervisor and files go before the next theme starts
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  for (const theme of THEMES) {
    it(`${theme.name}: every light and the summary read, with and without the bell flag; the theme's colours stay`, { timeout: 90_000 }, async () => {
      const env = await startLiveEnv({ cols: 400, rows: 12 });
      cleanups.push(() => env.cleanup());
      const dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-theme-'));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(path.join(dir, 'theme.conf'), theme.config(dir));
      await env.tmuxOk('source-file', path.join(dir, 'theme.conf'));
      const themed = {
        wsf: await option(env, 'window-status-format'),
        wscf: await option(env, 'window-status-current-format'),
        right: await option(env, 'status-right'),
      };
      if (theme.native) {
        expect(themed.wsf).toContain(LIGHT_PREFIX);
        expect(themed.right).not.toContain('@nerdr_summary');
      }

      // windows with each kind's light, and the same with the bell flag; one of each without a light
      await env.tmuxOk('rename-window', '-t', '=user:0', 'cur');
      const plain: Partial<Record<Kind, string>> = {};
      const belled: Partial<Record<Kind, string>> = {};
      for (const kind of LIGHT_KINDS) {
        plain[kind] = await windowId(env, `l-${SHORT[kind]}`, 'exec sleep 600');
        belled[kind] = await windowId(env, `b-${SHORT[kind]}`, "printf '\\a'; exec sleep 600");
        await env.tmuxOk('set-option', '-w', '-t', plain[kind]!, '@nerdr_light', DEFAULT_GLYPHS[kind]);
        await env.tmuxOk('set-option', '-w', '-t', belled[kind]!, '@nerdr_light', DEFAULT_GLYPHS[kind]);
      }
      await windowId(env, 'l-none', 'exec sleep 600');
      const belledNone = await windowId(env, 'b-none', "printf '\\a'; exec sleep 600");
      for (const w of [...Object.values(belled), belledNone]) await waitFor(() => bellFlag(env, w), { what: `the bell flag on ${w}` });

      // real agents: one that asks (nerdr writes its light, counts it and rings its bell) and one
      // that finishes a turn nobody watches (done: ✓ in the summary)
      const made = await env.nerdr('new', 'demo', '-d', '-t', 'user', '--name', 'asker', '--', '--auto', '1', '--ask', '--work', '0');
      expect(made.code, made.stderr).toBe(0);
      const asker = made.stdout.trim();
      const fin = await env.nerdr('new', 'demo', '-d', '-t', 'user', '--name', 'finisher', '--', '--auto', '0', '--work', '1');
      expect(fin.code, fin.stderr).toBe(0);
      const finisher = fin.stdout.trim();
      const stateOf = async (win: string): Promise<string | undefined> => (await env.lsJson()).find((a) => a.window === win)?.state;
      await Promise.all([
        (async () => {
          await waitFor(async () => (await stateOf(asker)) === 'blocked', { what: 'the asking demo agent blocked', timeoutMs: 20_000 });
          await waitFor(() => bellFlag(env, asker), { what: "nerdr ringing the blocked window's bell" });
        })(),
        (async () => {
          await waitFor(async () => (await stateOf(finisher)) === 'idle', { what: 'the other demo agent at its prompt', timeoutMs: 20_000 });
          await env.tmuxOk('send-keys', '-t', finisher, '-l', 'go');
          await env.tmuxOk('send-keys', '-t', finisher, 'Enter');
          await waitFor(async () => (await stateOf(finisher)) === 'done', { what: 'the other demo agent done', timeoutMs: 20_000 });
        })(),
      ]);
      await waitFor(async () => /✋1.*✓1/.test(await option(env, '@nerdr_summary')), { what: 'the summary counting the blocked and the done agent' });

      if (theme.native) {
        // the theme reads the light and the summary itself: nerdr adds neither a second time
        expect(await option(env, 'window-status-format')).toBe(themed.wsf);
        expect(await option(env, 'window-status-current-format')).toBe(themed.wscf);
        expect(await option(env, 'status-right')).toBe(themed.right);
      } else {
        expect(await option(env, 'window-status-format')).toBe(LIGHT_PREFIX + themed.wsf);
        expect(await option(env, 'status-right')).toBe(SUMMARY_PREFIX + themed.right);
      }

      const outer: OuterClient = await startOuterClient(env, { cols: 400, rows: 12 });
      cleanups.push(() => outer.stop());
      const names = [...LIGHT_KINDS.flatMap((k) => [`l-${SHORT[k]}`, `b-${SHORT[k]}`]), 'l-none', 'b-none', 'asker', 'finisher', 'cur'];
      let previous = '';
      const cells = await waitFor(
        async () => {
          const c = await outer.statusCells();
          const text = cellText(c);
          // complete, and drawn the same twice in a row (not caught in the middle of a redraw)
          const same = JSON.stringify(c) === previous;
          previous = JSON.stringify(c);
          if (names.every((n) => text.includes(n)) && text.includes('✋') && text.includes('✓') && same) return c;
          throw new Error(`status line: ${text}`);
        },
        { what: 'the status line with every window and the summary', timeoutMs: 15_000 },
      );
      const line = cellText(cells);

      const problems: string[] = [];
      const noLight = entry(cells, 'l-none')!;
      const bellNoLight = entry(cells, 'b-none')!;
      for (const kind of LIGHT_KINDS) {
        for (const [name, without, label] of [
          [`l-${SHORT[kind]}`, noLight, 'no bell'],
          [`b-${SHORT[kind]}`, bellNoLight, 'bell flag'],
        ] as const) {
          const e = entry(cells, name);
          if (!e) {
            problems.push(`${name} not found once in: ${line}`);
            continue;
          }
          const why = unreadable(e.glyph, kind, `${name} (${label})`);
          if (why) problems.push(why);
          if (e.glyph && e.glyph.ch !== DEFAULT_LOOKS[kind].glyph) problems.push(`${name}: glyph ${e.glyph.ch}, not ${DEFAULT_LOOKS[kind].glyph}`);
          // the rest of the entry as the theme draws it without a light
          if (style(e.name[0]) !== style(without.name[0])) problems.push(`${name} (${label}): the name is drawn ${style(e.name[0])} after the light, ${style(without.name[0])} without one`);
        }
      }
      const agent = entry(cells, 'asker');
      const agentWhy = unreadable(agent?.glyph, 'blocked', 'the blocked agent (bell rung by nerdr)');
      if (agentWhy) problems.push(agentWhy);
      if (agent && style(agent.name[0]) !== style(bellNoLight.name[0])) problems.push(`asker: the name is drawn ${style(agent.name[0])}, ${style(bellNoLight.name[0])} without a light`);
      const finished = entry(cells, 'finisher');
      const finWhy = unreadable(finished?.glyph, 'done', 'the done agent');
      if (finWhy) problems.push(finWhy);

      // the summary: once, each count in its light's colour, readable
      expect([...line].filter((ch) => ch === '✋').length, `the summary once in: ${line}`).toBe(1);
      expect([...line].filter((ch) => ch === '✓').length, `the summary once in: ${line}`).toBe(1);
      for (const c of cells) {
        const kind = SUMMARY_GLYPHS[c.ch];
        if (!kind || c.ch === '○') continue;
        const why = unreadable(c, kind, `the summary's ${c.ch}`);
        if (why) problems.push(why);
      }

      // the current window, with each kind in turn (oh-my-tmux draws it light blue)
      const curBefore = entry(cells, 'cur')!;
      expect(curBefore.glyph).toBeUndefined();
      for (const kind of LIGHT_KINDS) {
        await env.tmuxOk('set-option', '-w', '-t', '=user:0', '@nerdr_light', DEFAULT_GLYPHS[kind]);
        const want = tmuxColourHex(DEFAULT_LOOKS[kind].color.split(',')[0]!);
        // drawn: its glyph, in its colour as fg or (reversed) as bg
        const e = await waitFor(
          async () => {
            const c = entry(await outer.statusCells(), 'cur');
            return c?.glyph?.ch === DEFAULT_LOOKS[kind].glyph && (c.glyph.fg === want || c.glyph.bg === want) && c;
          },
          { what: `the current window's ${kind} light` },
        );
        const why = unreadable(e.glyph, kind, `the current window (${kind})`);
        if (why) problems.push(why);
        if (style(e.name[0]) !== style(curBefore.name[0])) problems.push(`cur (${kind}): the name is drawn ${style(e.name[0])} after the light, ${style(curBefore.name[0])} without one`);
      }
      expect(problems, `status line: ${line}`).toEqual([]);

      // uninstall takes out only what nerdr put in: a theme's own copy of the light stays
      const un = await env.nerdr('tmux', 'uninstall');
      expect(un.code, un.stderr).toBe(0);
      expect(await option(env, 'window-status-format')).toBe(themed.wsf);
      expect(await option(env, 'window-status-current-format')).toBe(themed.wscf);
      expect(await option(env, 'status-right')).toBe(themed.right);
    });
  }
});
