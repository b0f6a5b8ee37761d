// installLights / uninstallLights (src/tmux/status.ts) against a real private tmux server: the
// prefix goes only where the format does not read the light already (itself or through a theme's
// options, catppuccin's option names here), and uninstall takes out only the prefix nerdr put at
// the start, never the same text elsewhere in the user's value.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { argvSafeAll } from '../../../src/tmux/server.js';
import { LIGHT_PREFIX, SUMMARY_PREFIX, SUMMARY_WIDTH, installLights, readsMarker, uninstallLights, withoutPrefix, type RunArgv } from '../../../src/tmux/status.js';
import { startServer, tmuxAvailable, type PrivateServer } from './helpers.js';

describe('withoutPrefix', () => {
  it('takes the prefix off the start of what nerdr recorded, keeping text appended since', () => {
    expect(withoutPrefix(`${LIGHT_PREFIX}#I:#W`, LIGHT_PREFIX, '#I:#W')).toBe('#I:#W');
    expect(withoutPrefix(`${LIGHT_PREFIX}#I:#W #F`, LIGHT_PREFIX, '#I:#W')).toBe('#I:#W #F');
    expect(withoutPrefix(`${SUMMARY_PREFIX}`, SUMMARY_PREFIX, '')).toBe('');
  });

  it('leaves the same text alone anywhere else, and a value nerdr never prefixed', () => {
    const catppuccin = `#[fg=#11111b,bg=#9399b2] #I #[fg=#cdd6f4,bg=#313244] ${LIGHT_PREFIX}#W `;
    expect(withoutPrefix(catppuccin, LIGHT_PREFIX, '#I:#W')).toBeNull();
    // the user's own format, written as docs/tmux.md shows: nothing recorded, so not ours
    expect(withoutPrefix(`${LIGHT_PREFIX}#I:#W#F`, LIGHT_PREFIX, null)).toBeNull();
    // reset by a config reload to the user's own text: not what nerdr prefixed
    expect(withoutPrefix(`${LIGHT_PREFIX}#I:#W#F`, LIGHT_PREFIX, '#I #W')).toBeNull();
  });
});

describe.skipIf(!tmuxAvailable)('installLights / uninstallLights on a real server', () => {
  let srv: PrivateServer;
  let run: RunArgv;
  const show = async (option: string): Promise<string> => (await srv.tmux('show-options', '-gv', option)).replace(/\n$/, '');
  const set = async (option: string, value: string): Promise<void> => {
    await run(['set-option', '-g', option, value]);
  };

  beforeAll(async () => {
    srv = await startServer();
    run = (args) => srv.tmux(...argvSafeAll(args));
  });
  afterAll(async () => {
    await srv?.stop();
  });
  beforeEach(async () => {
    for (const o of ['window-status-format', 'window-status-current-format', 'status-right']) {
      await srv.tmux('set-option', '-gu', o);
      await srv.tmux('set-option', '-gqu', `@nerdr_saved_${o}`);
    }
  });

  it("reads the summary through catppuccin's status module options", async () => {
    await set('@catppuccin_nerdr_text', ' #{E:@nerdr_summary}');
    await set('@catppuccin_status_nerdr', '#[fg=#f9e2af]#[fg=#11111b,bg=#f9e2af]● #[fg=#cdd6f4,bg=#313244]#{E:@catppuccin_nerdr_text}#[fg=#313244] ');
    await set('@catppuccin_status_application', '#[fg=#eba0ac] #{pane_current_command}');
    expect(await readsMarker(run, '#{E:@catppuccin_status_application}#{E:@catppuccin_status_nerdr}', '@nerdr_summary')).toBe(true);
    expect(await readsMarker(run, '#{E:@catppuccin_status_application} %H:%M user@host', '@nerdr_summary')).toBe(false);
  });

  it('catppuccin with the native recipe: install adds nothing, uninstall removes nothing', async () => {
    // what catppuccin builds from @catppuccin_window_text = ' #{?@nerdr_light,#{E:@nerdr_light} ,}#W'
    const wsf = `#[fg=#11111b,bg=#{@thm_overlay_2}] #I #[fg=#cdd6f4,bg=#{@thm_surface_0}] ${LIGHT_PREFIX}#W `;
    const wscf = `#[fg=#11111b,bg=#{@thm_mauve}] #I #[fg=#cdd6f4,bg=#{@thm_surface_1}] ${LIGHT_PREFIX}#W `;
    const right = '#{E:@catppuccin_status_application}#{E:@catppuccin_status_nerdr}';
    await set('window-status-format', wsf);
    await set('window-status-current-format', wscf);
    await set('status-right', right);
    expect(await installLights(run)).toEqual([]);
    expect(await uninstallLights(run)).toEqual([]);
    expect(await show('window-status-format')).toBe(wsf);
    expect(await show('window-status-current-format')).toBe(wscf);
    expect(await show('status-right')).toBe(right);
  });

  it("uninstall leaves the user's own format that starts with the light", async () => {
    const own = `${LIGHT_PREFIX}#I:#W#F`;
    await set('window-status-format', own);
    expect(await uninstallLights(run)).toEqual([]);
    expect(await show('window-status-format')).toBe(own);
  });

  it('uninstall takes out the prefix it put in, keeping what was appended since; once', async () => {
    await set('status-right', 'mine;');
    expect(await installLights(run)).toContain('status-right');
    expect(await show('status-right')).toBe(`${SUMMARY_PREFIX}mine;`);
    await srv.tmux('set-option', '-ga', 'status-right', ' %H:%M');
    expect(await uninstallLights(run)).toContain('status-right');
    expect(await show('status-right')).toBe('mine; %H:%M');
    expect(await uninstallLights(run)).toEqual([]);
    expect(await show('status-right')).toBe('mine; %H:%M');
  });

  it('status-right-length grows by what the summary needs, and comes back on uninstall', async () => {
    await srv.tmux('set-option', '-g', 'status-right-length', '40');
    await set('status-right', '#H %H:%M');
    await installLights(run);
    expect(await show('status-right-length')).toBe(String(40 + SUMMARY_WIDTH));
    expect(await uninstallLights(run)).toContain('status-right');
    expect(await show('status-right-length')).toBe('40');
    // a length the user set since is theirs: uninstall leaves it
    await installLights(run);
    await srv.tmux('set-option', '-g', 'status-right-length', '100');
    await uninstallLights(run);
    expect(await show('status-right-length')).toBe('100');
    await srv.tmux('set-option', '-gu', 'status-right-length');
  });

  it('an empty value nerdr prefixed comes back empty', async () => {
    await set('status-right', '');
    expect(await installLights(run)).toContain('status-right');
    expect(await show('status-right')).toBe(SUMMARY_PREFIX);
    expect(await uninstallLights(run)).toContain('status-right');
    expect(await show('status-right')).toBe('');
  });
});
