// Live: the status line survives the user's config reload (issue 24, part 6). `tmux source-file`
// sets status-right and window-status-format to what the file says, without nerdr's prefixes; the
// supervisor, told by its format subscription, puts each back once around the new value. After
// `nerdr tmux uninstall` a reload leaves them out.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIGHT_PREFIX, SUMMARY_PREFIX } from '../../src/tmux/status.js';
import { startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('the status line survives a config reload', () => {
  let env: LiveEnv;
  const option = async (name: string): Promise<string> => (await env.tmuxOk('show-options', '-gv', name)).replace(/\n$/, '');
  const coreLog = (): string =>
    readdirSync(env.stateDir)
      .filter((f) => f.startsWith('core'))
      .map((f) => readFileSync(path.join(env.stateDir, f), 'utf8'))
      .join('');
  const count = (text: string, part: string): number => text.split(part).length - 1;
  /** `tmux source-file` of a config that sets these, as a user's ~/.tmux.conf would. */
  const reload = async (name: string, lines: string[]): Promise<void> => {
    const file = path.join(env.home, name);
    writeFileSync(file, lines.join('\n') + '\n');
    await env.tmuxOk('source-file', file);
  };

  beforeAll(async () => {
    env = await startLiveEnv();
    await env.tmuxOk('set-option', '-g', 'status-right', 'before #H');
    await env.tmuxOk('set-option', '-g', 'window-status-format', '#I:#W before');
    const r = await env.nerdr('new', 'demo', '-d', '--', '--auto', '0');
    expect(r.code, r.stderr).toBe(0);
    const inst = await env.nerdr('tmux', 'install');
    expect(inst.code, inst.stderr).toBe(0);
    await waitFor(async () => (await option('status-right')) === SUMMARY_PREFIX + 'before #H' && (await option('window-status-format')) === LIGHT_PREFIX + '#I:#W before', {
      what: 'the prefixes installed',
    });
  }, 60_000);
  afterAll(async () => {
    await env?.cleanup();
  });

  it('a reload: the prefixes come back around the new values, which are kept as the saved ones', async () => {
    const wscf = await option('window-status-current-format');
    await reload('tmux.conf', ["set -g status-right 'reloaded #H %H:%M'", "set -g window-status-format '#I:#W reloaded'"]);
    // what the file says, for a moment
    await waitFor(
      async () => (await option('status-right')) === SUMMARY_PREFIX + 'reloaded #H %H:%M' && (await option('window-status-format')) === LIGHT_PREFIX + '#I:#W reloaded',
      { what: 'the prefixes back around the reloaded values', timeoutMs: 10_000 },
    );
    expect(await option('@nerdr_saved_status-right')).toBe('reloaded #H %H:%M');
    expect(await option('@nerdr_saved_window-status-format')).toBe('#I:#W reloaded');
    // the option the reload did not set is as it was: prefixed once
    expect(await option('window-status-current-format')).toBe(wscf);
    expect(count(wscf, LIGHT_PREFIX)).toBe(1);
    // once per change: one line for each option put back
    expect(count(coreLog(), "status-right lost nerdr's prefix (a config reload?); put back")).toBe(1);
    expect(count(coreLog(), "window-status-format lost nerdr's prefix (a config reload?); put back")).toBe(1);

    // the same config again (a user reloading while editing it): back again
    await reload('tmux.conf', ["set -g status-right 'reloaded #H %H:%M'", "set -g window-status-format '#I:#W reloaded'"]);
    await waitFor(async () => count(coreLog(), "status-right lost nerdr's prefix (a config reload?); put back") === 2, { what: 'the second reload seen', timeoutMs: 10_000 });
    expect(await option('status-right')).toBe(SUMMARY_PREFIX + 'reloaded #H %H:%M');
    expect(await option('window-status-format')).toBe(LIGHT_PREFIX + '#I:#W reloaded');
  });

  it('after `nerdr tmux uninstall`, a reload leaves them out', async () => {
    const left = "has no nerdr prefix; left so: nerdr tmux uninstall was run";
    const un = await env.nerdr('tmux', 'uninstall');
    expect(un.code, un.stderr).toBe(0);
    expect(await option('status-right')).toBe('reloaded #H %H:%M');
    // the supervisor saw the uninstall take them out, and left them so
    await waitFor(() => count(coreLog(), left) >= 1, { what: 'the supervisor seeing the uninstall', timeoutMs: 10_000 });
    const seen = count(coreLog(), left);
    await reload('tmux2.conf', ["set -g status-right 'after uninstall'", "set -g window-status-format '#I after uninstall'"]);
    await waitFor(() => count(coreLog(), left) > seen, { what: 'the supervisor seeing the reload', timeoutMs: 10_000 });
    expect(await option('status-right')).toBe('after uninstall');
    expect(await option('window-status-format')).toBe('#I after uninstall');
    expect(await option('window-status-current-format')).not.toContain('@nerdr_light');
  });
});
