// Errors as users meet them (issue 25; docs/errors.md): a message and a fix, no stack, the code's
// exit status. A supervisor that cannot start is said at once, with its reason and a fix, not
// after a 10 s wait for "did not start": the start record's reason (src/supervisor/holder.ts
// startFailure), shown by the CLI's ensureSupervisor (src/cli/context.ts). The statuses other live
// tests do not reach are here: 3 from `supervisor status`, 6 from `events --no-start` (124 and 3
// of `wait`: messages-wait.test.ts; 5: events.test.ts; 2: hooks.test.ts, selftest.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverFiles } from '../../src/paths.js';
import { processStartTicks } from '../../src/store/lock.js';
import { writeStarts } from '../../src/supervisor/holder.js';
import { NERDR_BIN, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('a supervisor that cannot start', () => {
  let env: LiveEnv;

  beforeAll(async () => {
    env = await startLiveEnv();
  });

  afterAll(async () => {
    await env?.cleanup();
  });

  /** A sleep that holds the start lock at `file` as a nerdr command starting the supervisor would. */
  async function holdStart(file: string): Promise<{ stand: ChildProcess; pid: number }> {
    const stand = spawn('sleep', ['120'], { stdio: 'ignore' });
    const pid = stand.pid!;
    env.track(pid);
    const start = await waitFor(() => processStartTicks(pid), { what: 'the sleep to run' });
    writeFileSync(file, `${pid} stand-in ${Date.now()} ${start}\n`);
    return { stand, pid };
  }

  it('supervisor status with none running: exit 3, no error', async () => {
    const r = await env.nerdr('supervisor', 'status');
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^not running/);
    expect(r.stderr).toBe('');
  }, 40_000);

  it('events --no-start with no tmux server: exit 6, the message and its fix', async () => {
    const r = await env.nerdrWith(['-L', `${env.server}-none`, 'events', '--no-start'], { noServer: true });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^nerdr: no tmux server is running at .*\n {2}fix: nothing was started \(--no-start\)\n$/);
  }, 40_000);

  it('an option value nerdr cannot use: exit 1, the message and a fix', async () => {
    const r = await env.nerdr('read', 'x', '--lines', 'many');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('nerdr: --lines takes a positive whole number, not "many"\n  fix: e.g. --lines 20\n');
  }, 40_000);

  it('says why at once, with the fix, and exits 1', async () => {
    // a plain file where the socket goes: the CLI finds no supervisor there and starts one, which
    // refuses to serve (src/supervisor/socket/socket-dir.ts) and records why
    const socket = serverFiles(env.socketPath, env.env).socket;
    writeFileSync(socket, 'not a socket');
    try {
      const t0 = Date.now();
      const r = await env.nerdr('supervisor', 'start');
      const took = Date.now() - t0;
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^nerdr: the supervisor did not start: start failed: refusing to serve: .* exists and is not a socket\n/);
      expect(r.stderr).toMatch(/\n {2}fix: move that file away; its log: .*core-.*\.log/);
      expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/); // no stack
      expect(took).toBeLessThan(8000);
    } finally {
      await env.nerdr('supervisor', 'stop');
      rmSync(socket, { force: true });
    }
  }, 40_000);

  it('a start under way is waited for, 20 s more while it runs without answering, and taken over once the command starting it is gone', async () => {
    // a sleep stands for a command that holds the start lock (src/cli/context.ts) and for the
    // supervisor it started, which runs and has not answered yet (a loaded machine)
    const files = serverFiles(env.socketPath, env.env);
    const logFrom = env.supervisorLog().length;
    const starts = () => env.supervisorLog().slice(logFrom).match(/starting in tmux's holder pane/g) ?? [];
    const { stand, pid } = await holdStart(files.starting);
    writeStarts(files.starts, [{ at: Date.now(), pid, ended: null }]);
    const cli = spawn(process.execPath, [NERDR_BIN, '-L', env.server, 'supervisor', 'start'], { env: env.env, stdio: ['ignore', 'pipe', 'pipe'] });
    env.track(cli.pid!);
    let stderr = '';
    let stdout = '';
    cli.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    cli.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    const exited = new Promise<number | null>((r) => cli.on('exit', (code) => r(code)));
    try {
      await waitFor(() => /still starting/.test(stderr), { what: 'the command to say it waits longer', timeoutMs: 20_000 });
      expect(stderr).toBe(`nerdr: the supervisor (pid ${pid}) is still starting; waiting up to 20 s more\n`);
      // it started nothing while the lock was held
      expect(starts()).toHaveLength(0);
      stand.kill('SIGKILL');
      expect(await exited).toBe(0);
      expect(stdout).toMatch(/^started: pid \d+\n$/);
      expect(starts()).toHaveLength(1);
      expect(existsSync(files.starting)).toBe(false);
    } finally {
      stand.kill('SIGKILL');
      cli.kill('SIGKILL');
      await env.nerdr('supervisor', 'stop');
    }
  }, 60_000);

  it('a command that took the start and never made it is named when the wait runs out', async () => {
    // a sleep stands for a `nerdr` command stopped (^Z) while it held the start lock: no
    // supervisor starts, and after 10 s the waiting command says who holds it
    const files = serverFiles(env.socketPath, env.env);
    const { stand, pid } = await holdStart(files.starting);
    try {
      const r = await env.nerdr('supervisor', 'start');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^nerdr: the supervisor did not start within 10 s; another nerdr command \\(pid ${pid}\\) was starting it and has not finished\n {2}fix: see its log: `));
    } finally {
      stand.kill('SIGKILL');
      rmSync(files.starting, { force: true });
    }
  }, 40_000);

  it('an unknown agent on a running supervisor: the code and its fix from the table', async () => {
    const r = await env.nerdr('read', 'nosuch');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^nerdr: .*nosuch.*\n {2}fix: /);
  }, 40_000);
});
