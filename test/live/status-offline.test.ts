// Live: while no supervisor runs, the status bar says so (issue 24, part 1). The lights and the
// summary carry their offline look, which tmux itself draws while no control client is attached
// to _nerdr: the light's glyph in the offline grey, `nerdr ✗` instead of the counts. Read from
// the status line a real client draws (helpers/status-line.ts), not from option values.

import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LOOKS, DEFAULT_OFFLINE } from '../../src/looks.js';
import { pidAlive, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { cellText, startOuterClient, tmuxColourHex, type Cell, type OuterClient } from './helpers/status-line.js';

const RED = tmuxColourHex(DEFAULT_LOOKS.blocked.color.split(',')[0]!);
const GREY = tmuxColourHex(DEFAULT_OFFLINE.color);

describe.skipIf(!tmuxAvailable)('the status line while no supervisor runs', () => {
  let env: LiveEnv;
  let outer: OuterClient;

  /** The light in front of the agent's entry (`● [asker]`), and the status line's text. */
  const drawn = async (): Promise<{ light: Cell | undefined; text: string }> => {
    const cells = await outer.statusCells();
    const text = cellText(cells);
    const at = text.indexOf('[asker]');
    return { light: at >= 2 ? cells[[...text.slice(0, at)].length - 2] : undefined, text };
  };
  const live = async (): Promise<string | false> => {
    const { light, text } = await drawn();
    return light?.ch === '●' && light.fg === RED && text.includes('✋1') && !text.includes('nerdr ✗') && text;
  };
  // offline: the light the window had, whatever its state then (a supervisor stopped right after
  // a revival may not have judged the screen again yet: ◌), in the offline grey
  const GLYPHS = new Set(Object.values(DEFAULT_LOOKS).map((l) => l.glyph));
  const offline = async (): Promise<string | false> => {
    const { light, text } = await drawn();
    return light !== undefined && GLYPHS.has(light.ch) && light.fg === GREY && text.includes(`nerdr ${DEFAULT_OFFLINE.glyph}`) && !text.includes('✋') && text;
  };

  beforeAll(async () => {
    env = await startLiveEnv();
    // formats that make the agent's entry easy to find; status-interval left at tmux's 15 s
    await env.tmuxOk('set-option', '-g', 'window-status-format', '[#W]');
    await env.tmuxOk('set-option', '-g', 'window-status-current-format', '[#W]');
    await env.tmuxOk('set-option', '-g', 'status-right', '|end');
    await env.tmuxOk('set-option', '-g', 'status-right-length', '60');
    const made = await env.nerdr('new', 'demo', '-d', '-t', 'user', '--name', 'asker', '--', '--auto', '1', '--ask', '--work', '0');
    expect(made.code, made.stderr).toBe(0);
    await waitFor(async () => (await env.lsJson()).some((a) => a.name === 'asker' && a.state === 'blocked'), { what: 'the demo agent blocked', timeoutMs: 20_000 });
    outer = await startOuterClient(env, { cols: 200, rows: 10 });
  }, 60_000);
  afterAll(async () => {
    await outer?.stop();
    await env?.cleanup();
  });

  it('a supervisor runs: the light in its colour, the counts in the summary', async () => {
    await waitFor(live, { what: 'the live light and summary', timeoutMs: 10_000 });
  });

  it('`nerdr supervisor stop`: the light dims and the summary says `nerdr ✗`, at once; `supervisor start` brings them back', async () => {
    const stop = await env.nerdr('supervisor', 'stop');
    expect(stop.code, stop.stderr).toBe(0);
    // well within tmux's status-interval (15 s): the control client's leaving repaints the bar
    await waitFor(offline, { what: 'the offline light and mark', timeoutMs: 5_000 });
    const start = await env.nerdr('supervisor', 'start');
    expect(start.code, start.stderr).toBe(0);
    await waitFor(live, { what: 'the live light and summary again', timeoutMs: 10_000 });
  });

  it('kill -9 of the supervisor: the offline look, unless tmux has started a new supervisor already', async () => {
    const pid = await env.supervisorPid();
    expect(pid).not.toBeNull();
    process.kill(pid!, 'SIGKILL');
    await waitFor(() => !pidAlive(pid!), { what: 'the killed supervisor gone' });
    let sawOffline = false;
    await waitFor(
      async () => {
        if (await offline()) sawOffline = true;
        if (sawOffline) return true;
        // revived (by tmux, as a held supervisor): a new one, and the live look
        const now = await env.supervisorPid();
        return now !== null && now !== pid && (await live()) !== false;
      },
      { what: 'the offline look, or a new supervisor', timeoutMs: 10_000 },
    );
    // the next test starts from a supervisor that runs, not from one tmux is still starting
    await waitFor(async () => {
      const now = await env.supervisorPid();
      return now !== null && now !== pid && (await live()) !== false;
    }, { what: 'the revived supervisor and the live look', timeoutMs: 15_000 });
  });

  it("a control client that leaves without a word: every status line is repainted at once (_nerdr's client-detached hook)", async () => {
    // no supervisor (for good), and a bare control client on _nerdr in its place
    expect((await env.nerdr('supervisor', 'stop')).code).toBe(0);
    await waitFor(offline, { what: 'the offline look', timeoutMs: 5_000 }).catch(async (err: Error) => {
      // what tmux has while the bar is not offline: the clients and the hidden session's panes
      const clients = await env.tmuxOk('list-clients', '-F', '#{client_pid} #{client_control_mode} #{client_flags} #{session_name}');
      const panes = await env.tmuxOk('list-panes', '-s', '-t', '=_nerdr', '-F', '#{window_name} #{pane_id} #{pane_dead} #{pane_pid}');
      throw new Error(`${err.message}; clients: ${clients.trim().replace(/\n/g, ' | ')}; _nerdr: ${panes.trim().replace(/\n/g, ' | ')}; bar: ${(await drawn()).text}`);
    });
    const bare = spawn('tmux', ['-L', env.server, '-C', 'attach', '-t', '=_nerdr'], { env: env.env, stdio: ['pipe', 'ignore', 'ignore'] });
    const clients = async (): Promise<string[][]> => (await env.tmuxOk('list-clients', '-F', '#{client_control_mode} #{client_pid} #{client_name}')).trim().split('\n').map((l) => l.split(' '));
    const control = await waitFor(async () => (await clients()).find(([mode]) => mode === '1'), { what: 'the bare control client attached' });
    env.track(Number(control[1]));
    // attaching repaints nothing by itself: ask for it, so the bar shows what tmux now knows
    const user = (await clients()).find(([mode]) => mode === '0')!;
    await env.tmuxOk('refresh-client', '-S', '-t', user[2]!);
    // what tmux draws while a control client is on _nerdr: not the offline mark, whatever state
    // the stopped supervisor last drew (◌ right after a revival, whose grey is the offline grey
    // too, not always the red ●)
    const attached = async (): Promise<string | false> => {
      const { light, text } = await drawn();
      return light !== undefined && GLYPHS.has(light.ch) && !text.includes(`nerdr ${DEFAULT_OFFLINE.glyph}`) && text;
    };
    await waitFor(attached, { what: 'the live look while a control client is on _nerdr', timeoutMs: 5_000 });
    process.kill(Number(control[1]), 'SIGKILL');
    bare.stdin!.destroy();
    // without the hook, not before the next status-interval (15 s)
    await waitFor(offline, { what: 'the offline look, repainted at once', timeoutMs: 3_000 });
  });
});
