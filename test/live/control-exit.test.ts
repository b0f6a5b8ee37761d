// A supervisor that stops while its control client is slow to exit leaves the tmux server running
// (docs/tmux.md). tmux 3.2a and 3.3a check a control client's subscriptions once a second, also
// while the client is exiting, when it no longer has a session, and segfault there: every session
// and agent with them. A supervisor's `detach-client` is that moment, for as long as the tmux
// client process takes to exit (the live tier run under strace, which slows every process, lost
// a 3.3a server to it), and so is `_nerdr` destroyed under it (`kill-session -a` from a user's
// session). Here that client is slowed on purpose: `tmux` on the server's PATH is a wrapper that
// runs the supervisor's control client under strace, its exit held 2.5 s. With a subscription to
// every pane (`%*`), or without the supervisor's unsubscribe before its detach, 3.2a and 3.3a lose
// the server every time; 3.7c checks for the missing session.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { which } from '../../src/integrations/common.js';
import { pidAlive, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

const STRACE = which('strace');
const TMUX = which('tmux');
if (tmuxAvailable && !STRACE) console.warn('control-exit.test.ts: no strace on PATH, so no tmux client can be slowed: skipped (.ci/run installs it)');

describe.skipIf(!tmuxAvailable || !STRACE || !TMUX)('a supervisor whose control client is slow to exit', () => {
  let env: LiveEnv;
  let dir = '';

  beforeAll(async () => {
    dir = path.join(process.env.TMPDIR ?? '/tmp', `nerdr-control-exit-${process.pid}-${Date.now()}`);
    const bin = path.join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    // the supervisor's own control client (`-C attach-session -E`) only; every other tmux call as it is
    writeFileSync(
      path.join(bin, 'tmux'),
      [
        '#!/bin/sh',
        'case " $* " in',
        `  *" -C attach-session -E "*) exec "${STRACE}" -f -o /dev/null -e trace=exit_group -e inject=exit_group:delay_enter=2500000 "${TMUX}" "$@" ;;`,
        'esac',
        `exec "${TMUX}" "$@"`,
        '',
      ].join('\n'),
    );
    chmodSync(path.join(bin, 'tmux'), 0o755);
    env = await startLiveEnv({ env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } });
  }, 60_000);

  afterAll(async () => {
    await env?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The supervisor's control client, which the wrapper runs under strace (else this test proves nothing). */
  async function tracedClient(): Promise<number> {
    const clients = (await env.tmuxOk('list-clients', '-F', '#{client_control_mode} #{client_pid} #{client_flags}')).trim().split('\n');
    const traced = clients
      .filter((l) => l.startsWith('1 ') && !l.includes('no-output'))
      .map((l) => Number(l.split(' ')[1]))
      .filter((pid) => /^TracerPid:\s*[1-9]/m.test(readFileSync(`/proc/${pid}/status`, 'utf8')));
    expect(traced, `a control client under strace among: ${clients.join(' | ')}`).toHaveLength(1);
    return traced[0]!;
  }

  /** The server, the user's session and its window outlived the client's slow exit. */
  async function serverLivesOn(client: number): Promise<void> {
    // its exit was held 2.5 s: tmux checked its subscriptions twice or more meanwhile
    await waitFor(() => !pidAlive(client), { what: 'the slow control client gone', timeoutMs: 10_000 });
    expect(pidAlive(env.serverPid), `the tmux server (pid ${env.serverPid}) is alive`).toBe(true);
    const sessions = await env.tmux('list-sessions', '-F', '#{session_name}');
    expect(sessions.code, sessions.stderr).toBe(0);
    expect(sessions.stdout.split('\n')).toContain('user');
  }

  it('`_nerdr` destroyed under it (`kill-session -t _nerdr`, then `kill-session -a`): the server lives on, and the supervisor attaches again', async () => {
    const made = await env.nerdr('new', '--cmd', 'sleep 600', '-d', '-t', 'user', '--name', 'idle');
    expect(made.code, made.stderr).toBe(0);
    await waitFor(async () => (await env.lsJson()).some((a) => a.name === 'idle'), { what: 'the window watched' });
    for (const kill of [['kill-session', '-t', '=_nerdr'], ['kill-session', '-a', '-t', '=user']]) {
      const client = await tracedClient();
      await env.tmuxOk(...kill);
      await serverLivesOn(client);
      // the supervisor went with its holder pane (docs/tmux.md); the next one attaches to a new
      // _nerdr and watches the window still
      const start = await env.nerdr('supervisor', 'start');
      expect(start.code, start.stderr).toBe(0);
      await waitFor(async () => (await env.tmux('has-session', '-t', '=_nerdr')).code === 0 && (await env.lsJson()).some((a) => a.name === 'idle'), { what: `the supervisor attached again after ${kill.join(' ')}`, timeoutMs: 15_000 });
      await waitFor(async () => (await env.tmuxOk('list-clients', '-F', '#{client_control_mode}#{client_session}')).includes('1_nerdr'), { what: 'its control client on _nerdr' });
    }
  });

  it('`nerdr supervisor stop`: the tmux server and its sessions live on', async () => {
    const client = await tracedClient();
    const stop = await env.nerdr('supervisor', 'stop');
    expect(stop.code, stop.stderr).toBe(0);
    await serverLivesOn(client);
  });
});
