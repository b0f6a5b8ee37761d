// A supervisor that falls behind (stopped with SIGSTOP for longer than pause-after) while agents
// flood output must catch up by itself: every mirror shows the agent's screen again and every
// light follows it, with no nerdr command run in between (`ls` and `read` are answered from
// memory and send tmux nothing).
//
// What goes wrong without care (tmux 3.2a–3.7c, see src/tmux/stall.ts): tmux pauses the panes
// whose queued output aged past pause-after while it writes to us again, queues their
// `%pause` lines, and then stops writing until we send it something. The panes stay paused, the
// mirrors stale, the lights frozen. (With no other client attached, tmux also stopped reading the
// panes while we were stopped, until the output keeper: test/live/stall-holdup.test.ts.) Coloured lines from three panes make it likely that tmux holds queued output
// for several panes when that happens, and a window switch during the stop puts a notification
// line behind it.

import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { SHARED_FIXTURES } from '../shared-fixtures.js';

const SCREEN = path.join(SHARED_FIXTURES, 'screens', 'claude', '04-permission-bash.ansi.txt');
const PANES = ['flood1', 'flood2', 'flood3'];
/** Longer than the supervisor's pause-after (2 s): tmux pauses what it queued for us. */
const STOP_MS = 7000;

// A stand-in for `claude`: coloured lines until $FLOOD_DIR/end exists (at most 60 s and 200 MB),
// then Claude's permission dialog, drawn once, and nothing more. Its progress and the time it
// finished go to $FLOOD_DIR/<name>.progress and <name>.done (name: its argument flood<N>).
const FLOODER = `#!/usr/bin/env node
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
const dir = process.env.FLOOD_DIR;
const name = process.argv.slice(2).find((a) => /^flood\\d+$/.test(a)) ?? 'pid' + process.pid;
const started = Date.now();
const pad = 'x'.repeat(40);
let sent = 0;
let n = 0;
function pump() {
  for (let k = 0; k < 20; k++) {
    let s = '';
    for (let i = 0; i < 200; i++) {
      n++;
      s += '\\x1b[3' + (n % 8) + 'mline ' + n + '\\x1b[0m \\x1b[1m' + pad + '\\x1b[0m\\r\\n';
    }
    sent += s.length;
    process.stdout.write(s); // a tty: this blocks while tmux does not read the pane
  }
  writeFileSync(dir + '/' + name + '.progress', String(sent));
  if (!existsSync(dir + '/end') && Date.now() - started < 60000 && sent < 200e6) return void setImmediate(pump);
  const rows = readFileSync(process.env.FLOOD_SCREEN, 'utf8').replace(/\\n$/, '').split('\\n');
  let out = '\\x1b[?25l\\x1b[H\\x1b[2J';
  rows.slice(0, process.stdout.rows || 40).forEach((l, i) => (out += '\\x1b[' + (i + 1) + ';1H' + l.replace(/\\r$/, '') + '\\x1b[0m'));
  process.stdout.write(out);
  writeFileSync(dir + '/' + name + '.done', String(Date.now()));
  setInterval(() => undefined, 1 << 30);
}
pump();
`;

describe.skipIf(!tmuxAvailable)('a supervisor stopped during a flood', () => {
  let env: LiveEnv;
  let root = '';
  let floodDir = '';

  beforeAll(async () => {
    root = path.join(os.tmpdir(), `nerdr-stall-${process.pid}-${Date.now()}`);
    const bin = path.join(root, 'bin');
    floodDir = path.join(root, 'flood');
    mkdirSync(bin, { recursive: true });
    mkdirSync(floodDir, { recursive: true });
    writeFileSync(path.join(bin, 'claude'), FLOODER);
    chmodSync(path.join(bin, 'claude'), 0o755);
    env = await startLiveEnv({
      env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, FLOOD_DIR: floodDir, FLOOD_SCREEN: SCREEN },
    });
  }, 60_000);

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const progress = (name: string): number => {
    try {
      return Number(readFileSync(path.join(floodDir, `${name}.progress`), 'utf8')) || 0;
    } catch {
      return 0;
    }
  };
  const doneAt = (name: string): number | null => {
    const f = path.join(floodDir, `${name}.done`);
    return existsSync(f) ? Number(readFileSync(f, 'utf8')) : null;
  };

  it('every paused pane is continued and re-seeded, and its light follows, with no command sent', async () => {
    for (const name of PANES) {
      const r = await env.nerdrWith(['new', 'claude', '-d', '--name', name, '--', name], { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
    }
    // all three flooding, and their output reaching the mirrors
    await waitFor(() => PANES.every((n) => progress(n) > 2_000_000), { timeoutMs: 30_000, what: 'every pane to have flooded 2 MB' });
    for (const name of PANES) {
      await waitFor(async () => (await env.nerdr('read', name)).stdout.includes('line '), { timeoutMs: 20_000, what: `${name}'s flood in its mirror` });
    }

    const sup = await env.supervisorPid();
    expect(sup).not.toBeNull();
    process.kill(sup!, 'SIGSTOP');
    try {
      // the condition under test, not a wait for something
      await new Promise((r) => setTimeout(r, STOP_MS - 1000));
      // the user switches windows meanwhile: tmux queues that notification behind the output
      // it holds for us, so one pane with queued output is enough to get stuck
      await env.tmuxOk('select-window', '-t', '=user:flood2');
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      process.kill(sup!, 'SIGCONT');
    }
    const resumed = Date.now();
    writeFileSync(path.join(floodDir, 'end'), '');
    await waitFor(() => PANES.every((n) => doneAt(n) !== null), { timeoutMs: 30_000, what: 'every flood to end' });

    // From here on only `read` and `ls` (answered from the supervisor's memory) and tmux
    // commands of other clients, which do not make tmux write to the supervisor.
    const caughtUp = new Map<string, number>();
    await waitFor(
      async () => {
        for (const name of PANES) {
          if (caughtUp.has(name)) continue;
          if ((await env.nerdr('read', name)).stdout.includes('Do you want to proceed?')) caughtUp.set(name, Date.now());
        }
        return caughtUp.size === PANES.length;
      },
      { timeoutMs: 20_000, intervalMs: 250, what: 'every mirror to show the dialog drawn after the flood' },
    ).catch(async (err: Error) => {
      // evidence for a pane left behind (once in a CI run on 3.2a): what the supervisor did with
      // it, and what tmux shows
      const behind = PANES.filter((n) => !caughtUp.has(n));
      const log = env.supervisorLog();
      const lines = log.split('\n').filter((l) => behind.some((n) => l.includes(n)) || /fell behind|paused|nudge/.test(l)).slice(-30);
      const explains = await Promise.all(behind.map(async (n) => (await env.nerdr('explain', n)).stdout));
      const screens = await Promise.all(behind.map(async (n) => (await env.tmux('capture-pane', '-p', '-t', `=user:${n}`)).stdout.split('\n').slice(0, 6).join('\n')));
      throw new Error(
        `${err.message}; caught up: ${[...caughtUp.keys()].join(', ') || 'none'}\n--- supervisor log\n${lines.join('\n')}\n--- explain\n${explains.join('\n')}\n--- tmux's screens (top)\n${screens.join('\n')}`,
      );
    });
    for (const name of PANES) expect(caughtUp.get(name)! - doneAt(name)!).toBeLessThan(10_000);

    // the lights: the state the status bar shows, and what ls says
    await waitFor(
      async () => {
        const rows = await env.lsJson();
        return PANES.every((n) => rows.find((r) => r.name === n)?.state === 'blocked');
      },
      { timeoutMs: 20_000, intervalMs: 250, what: 'every flood window blocked in ls' },
    );
    const rows = await env.lsJson();
    for (const name of PANES) {
      const win = rows.find((r) => r.name === name)!.window;
      await waitFor(async () => (await env.tmuxOk('show-options', '-wqv', '-t', win, '@nerdr_state')).trim() === 'blocked', {
        timeoutMs: 10_000,
        intervalMs: 250,
        what: `@nerdr_state of ${name} to be blocked`,
      });
    }

    // Whether tmux paused panes depends on how much output it held when the supervisor woke (a
    // loaded machine floods less): the catching up above must hold either way; say which it was.
    const log = env.supervisorLog();
    console.log(/tmux paused its output/.test(log) ? 'tmux paused panes during the stop' : 'tmux paused no pane this run: only the withheld-output path was exercised');
    expect(pidAlive(sup!)).toBe(true);
    expect(Date.now() - resumed).toBeLessThan(60_000);
  }, 180_000);
});
