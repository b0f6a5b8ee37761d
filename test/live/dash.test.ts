// Live: `nerdr dash` in a window of a private tmux server shows the demo agents with their
// lights, follows the selection, and quits on q.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { dashRunner } from './helpers/dash.js';

/** A not-yet that shows the screen in the timeout message. */
function fail(screen: string): never {
  throw new Error(`screen:\n${screen.replace(/\n+$/, '')}`);
}

describe.skipIf(!tmuxAvailable)('nerdr dash (live)', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv({ cols: 140, rows: 40 });
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  it('lists the demo agents with their lights, previews the selected one, and quits on q', async () => {
    const demo = await env.nerdr('demo');
    expect(demo.stderr).toBe('');
    expect(demo.code).toBe(0);
    await waitFor(async () => (await env.lsJson()).length === 3, { what: 'three demo agents in nerdr ls' });

    const win = (await env.tmuxOk('new-window', '-d', '-P', '-F', '#{window_id}', '-n', 'dash', process.execPath, '--input-type=module', '-e', dashRunner(env.server))).trim();
    const capture = async (): Promise<string> => env.tmuxOk('capture-pane', '-p', '-t', win);
    // it opens on the inbox (docs/inbox.md); Tab shows the agent list
    await waitFor(async () => (await capture()).includes(' · inbox '), { what: 'the dashboard to open on its inbox', timeoutMs: 20_000 });
    await env.tmuxOk('send-keys', '-t', win, 'Tab');

    const screen = await waitFor(
      async () => {
        const s = await capture();
        return ['demo-fast', 'demo-asks', 'demo-slow'].every((n) => s.includes(n)) && s.includes('nerdr · 3 agents') ? s : fail(s);
      },
      { what: 'the dashboard to list the three demo agents', timeoutMs: 20_000 },
    );
    for (const name of ['demo-fast', 'demo-asks', 'demo-slow']) {
      const line = screen.split('\n').find((l) => l.includes(name)) ?? '';
      expect(line).toMatch(new RegExp(`[●○◌◐✕⏸] ${name}\\s+demo\\s+(working|blocked|done|idle|unknown)`));
    }
    // the glyphs are coloured: capture with escapes shows an SGR just before a light
    expect(await env.tmuxOk('capture-pane', '-p', '-e', '-t', win)).toMatch(/\x1b\[[0-9;]*m[●○◌◐]/);
    // the preview's label names the selected agent; j moves the selection
    await waitFor(async () => {
      const s = await capture();
      return (s.includes(' demo-fast · ') && s.includes('nerdr demo agent')) || fail(s);
    }, { what: "the preview of demo-fast's screen" });
    await env.tmuxOk('send-keys', '-t', win, 'j');
    await waitFor(async () => (await capture()).includes(' demo-asks · '), { what: 'the preview to follow the selection to demo-asks' });

    await env.tmuxOk('send-keys', '-t', win, 'q');
    await waitFor(async () => !(await env.tmuxOk('list-windows', '-a', '-F', '#{window_id}')).split('\n').includes(win), { what: 'the dashboard window to close after q' });
  });
});
