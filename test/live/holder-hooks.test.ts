// The holder's hooks (src/supervisor/holder.ts, armArgs) on a real tmux server: they revive a dead
// supervisor pane and leave nothing else behind. A hook command that fails with no client to tell
// becomes a pending "configuration error" in tmux, written to the first client in the server's
// list at the next attach-session or new-session; when that client is a control client still
// identifying itself, tmux 3.2a, 3.3a and 3.7c segfault (cfg_show_causes → control_write), and a
// revived supervisor attaching is that moment: CI lost a whole tmux server to it. So after each
// case here no error may be pending: `source-file /dev/null` prints (and clears) what is.
//
// No nerdr supervisor runs here: the holder pane runs `sleep`, armed with the hooks the
// supervisor sets, on a private server with no client attached, where a failing command has no
// one to go to. A control client that attaches and leaves fires the fallback; a later hook of the
// test's own (index 9, a delay after it) says when the fallback has run.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { armArgs } from '../../src/supervisor/holder.js';
import { programEnv, tmuxAvailable, waitFor } from './helpers/env.js';

const SOCKET = `nerdr-test-${randomBytes(6).toString('hex')}`;
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8', timeout: 10_000 });
const ok = (...args: string[]): string => {
  const r = tmux(...args);
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
};
const ENV = { NERDR_TEST_VALUE: 'a#{b} c;d' };

describe.skipIf(!tmuxAvailable)('the holder pane\'s hooks on a real tmux (no supervisor)', () => {
  let version = '';
  let ticks = 0;
  let socketPath = '';
  let serverPid = 0;

  beforeAll(() => {
    version = execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim();
    ok('new-session', '-d', '-s', '_nerdr', '-n', '_home', 'sleep 100000');
    const [sock = '', pid = ''] = ok('display', '-p', '#{socket_path}\t#{pid}').split('\t');
    socketPath = sock;
    serverPid = Number(pid);
  });

  afterAll(() => {
    tmux('kill-server');
    // tmux 3.3a leaves its socket file behind after kill-server
    if (socketPath) rmSync(socketPath, { force: true });
  });

  /** A new holder window running sleep, armed as a supervisor arms its own pane with `vars`. */
  const holder = (vars: Record<string, string> = ENV): { pane: string; pid: number } => {
    const pane = ok('new-window', '-d', '-P', '-F', '#{pane_id}', '-t', '=_nerdr:', '-n', '_supervisor', 'sleep 100000');
    ok(...armArgs(pane, vars, version));
    return { pane, pid: Number(ok('display', '-p', '-t', pane, '#{pane_pid}')) };
  };
  /** The holder's program once respawned in place of `before`: its pid. */
  const respawned = (pane: string, before: number): Promise<number> =>
    waitFor(() => {
      const [dead, p] = paneState(pane).split(' ');
      return dead === '0' && Number(p) !== before ? Number(p) : undefined;
    }, { what: 'the holder respawned' });
  /** Each of `vars` is in the environment of the holder's program `pid`. */
  const carries = async (pid: number, vars: Record<string, string>): Promise<void> => {
    expect(await programEnv(pid, serverPid)).toMatchObject(vars);
  };
  const paneState = (pane: string) => tmux('display', '-p', '-t', pane, '#{pane_dead} #{pane_pid}').stdout.trim();

  /** A control client attaches to _nerdr and leaves; resolves once the fallback after it has run. */
  const detachAndWait = async (): Promise<void> => {
    const tick = String(++ticks);
    // later than every fallback (1 s at most): tmux's timers fire in order
    ok('set-hook', '-t', '=_nerdr:', 'client-detached[9]', `run-shell -b -d 1.5 -C 'set-option -g @nerdr_test_tick ${tick}'`);
    // attached first (its %session-changed), then its stdin ends: a control client leaves at EOF
    const c = spawn('tmux', ['-L', SOCKET, '-C', 'attach-session', '-t', '=_nerdr'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const closed = new Promise<number | null>((resolve) => c.on('close', resolve));
    await waitFor(() => out.includes('%session-changed'), { what: 'the control client attached' });
    c.stdin.end();
    expect(await closed).toBe(0);
    await waitFor(() => tmux('show-options', '-gqv', '@nerdr_test_tick').stdout.trim() === tick, { timeoutMs: 10_000, what: `the hooks after detach ${tick}` });
  };

  /** What tmux holds as pending configuration errors (and clears by printing them). */
  const pending = (): string => {
    const r = tmux('source-file', '/dev/null');
    return `${r.stdout}${r.stderr}`.trim();
  };

  it('a live holder is left alone by the fallback, and nothing is pending', async () => {
    expect(pending()).toBe('');
    const h = holder();
    await detachAndWait();
    expect(paneState(h.pane)).toBe(`0 ${h.pid}`);
    expect(pending()).toBe('');
  });

  it('kill -9 and the client leaving: the holder is respawned with its environment once, and nothing is pending', async () => {
    // as when a supervisor dies: its pane dies and its control client leaves. pane-died respawns
    // the pane at once (3.3a misses it now and then: then the fallback does), and the fallback
    // after it finds the pane alive: before, its respawn failed there, on every version
    const h = holder();
    process.kill(h.pid, 'SIGKILL');
    await detachAndWait();
    const pid = await respawned(h.pane, h.pid);
    await carries(pid, ENV);
    expect(pending()).toBe('');
    await detachAndWait();
    expect(paneState(h.pane)).toBe(`0 ${pid}`);
    expect(pending()).toBe('');
  });

  it('a dead holder pane-died missed (tmux 3.3a) is respawned by the fallback', async () => {
    const h = holder();
    // dead with its hook in place and never run: the hook is set again once the pane is dead
    ok('set-hook', '-p', '-u', '-t', h.pane, 'pane-died');
    process.kill(h.pid, 'SIGKILL');
    await waitFor(() => paneState(h.pane).startsWith('1 '), { what: 'the holder dead' });
    ok(...armArgs(h.pane, ENV, version));
    expect(paneState(h.pane)).toBe(`1 ${h.pid}`);
    await detachAndWait();
    const [dead, pid] = paneState(h.pane).split(' ');
    expect(dead).toBe('0');
    expect(Number(pid)).not.toBe(h.pid);
    await carries(Number(pid), ENV);
    expect(pending()).toBe('');
  });

  it('a large environment (npm run sets a hundred variables) is armed whole and carried by the respawn', async () => {
    const big: Record<string, string> = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`NERDR_TEST_V${i}`, `it's value ${i}: #{x} $HOME "q"`]));
    const h = holder(big);
    process.kill(h.pid, 'SIGKILL');
    await detachAndWait();
    await carries(await respawned(h.pane, h.pid), big);
    expect(pending()).toBe('');
  });

  it('a holder that is gone (a stop on purpose closes it) is no error for the fallback', async () => {
    const h = holder();
    ok('kill-pane', '-t', h.pane);
    await detachAndWait();
    expect(ok('list-panes', '-a', '-F', '#{pane_id}').split('\n')).not.toContain(h.pane);
    expect(pending()).toBe('');
  });
});
