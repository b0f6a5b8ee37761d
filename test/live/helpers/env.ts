// Shared harness for live tests: the real `nerdr` CLI (dist/) against a private tmux server.
//
//   const env = await startLiveEnv();          // tmux -L nerdr-test-<random> -f /dev/null, session `user` 120x40
//   const r = await env.nerdr('new', 'demo', '-d', '--', '--auto', '0');   // { code, stdout, stderr }
//   await waitFor(async () => (await env.lsJson()).length === 1, { what: 'the agent in ls' });
//   await env.cleanup();                       // in afterAll/finally: supervisor, tracked pids, server, temp dirs
//
// Isolation: every env gets its own temp NERDR_STATE_DIR, NERDR_CONFIG_DIR and HOME (XDG_* point
// inside it too), so nothing of the developer's own config, state or tmux is read or written.
// TMUX and TMUX_PANE are removed: nerdr finds the server only through the -L the runner adds.
// The tmux server is started with that same environment, so agent panes inherit it.
//
// Tests are run after `npm run build` (package.json's `npm test` does it); the runner spawns
// bin/nerdr.js, which loads dist/. startLiveEnv fails with a clear message when dist is missing.

import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverFiles } from '../../../src/paths.js';
import type { AgentRow } from '../../../src/protocol/rows.js';
import { request, SocketRequestError } from '../../../src/supervisor/socket/index.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const NERDR_BIN = path.join(REPO_ROOT, 'bin', 'nerdr.js');
export const DIST_MAIN = path.join(REPO_ROOT, 'dist', 'cli', 'main.js');

export interface RunResult {
  code: number | null;
  /** Set when the process was ended by a signal (e.g. our timeout). */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Extra variables, or `undefined` values to remove one from the env. */
  env?: Record<string, string | undefined>;
  /** Replace the env completely (still no TMUX unless you put it there). */
  replaceEnv?: NodeJS.ProcessEnv;
  cwd?: string;
  input?: string;
  /** The process is killed (SIGKILL) after this long; default 30 s. */
  timeoutMs?: number;
  /** Leave out the `-L <server>` the runner adds in front of the arguments. */
  noServer?: boolean;
}

export interface WaitOptions {
  /** Default 10 s. */
  timeoutMs?: number;
  /** Default 50 ms. */
  intervalMs?: number;
  /** What is awaited, for the failure message ("the demo window to be working"). */
  what?: string;
}

/** True when a usable tmux is on PATH; use with `describe.skipIf(!tmuxAvailable)`. */
export const tmuxAvailable: boolean = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The tmux on PATH as [major, minor] (3.2a → [3, 2]), read as nerdr reads it; [0, 0] when there is none. */
export const tmuxVersion: [number, number] = (() => {
  try {
    const v = parseVersion(execFileSync('tmux', ['-V'], { encoding: 'utf8' }));
    return v ? [v[0], v[1]] : [0, 0];
  } catch {
    return [0, 0];
  }
})();

/** True when the tmux on PATH is at least major.minor. */
export function tmuxAtLeast(major: number, minor: number): boolean {
  return tmuxVersion[0] > major || (tmuxVersion[0] === major && tmuxVersion[1] >= minor);
}

/** Throws a clear error when dist/ was not built (run `npm run build`, or `npm test`). */
export function assertBuilt(): void {
  if (!existsSync(DIST_MAIN)) {
    throw new Error(`${DIST_MAIN} is missing: live tests run the compiled CLI. Run \`npm run build\` first (\`npm test\` does it for you).`);
  }
}

/**
 * Polls `fn` until it returns something other than undefined/null/false, and returns that.
 * A throw from `fn` counts as "not yet"; its message is kept for the failure report.
 * Fails after the deadline with `timed out after N ms waiting for <what>` plus the last
 * value or error seen, so a red test says what it was waiting for.
 */
export async function waitFor<T>(fn: () => T | Promise<T>, opts: WaitOptions = {}): Promise<Exclude<T, undefined | null | false>> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let last: string = 'nothing yet';
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== null && v !== false) return v as Exclude<T, undefined | null | false>;
      last = `last result: ${String(v)}`;
    } catch (err) {
      last = `last error: ${(err as Error).message}`;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${opts.what ?? 'a condition'} (${last})`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Spawns a program with argv (never a shell) and collects its output. */
export function run(file: string, args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: opts.env, cwd: opts.cwd ?? REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** Whether a process runs: nerdr's own check, so an exited but unreaped (zombie) process is not. */
import { pidAlive, processStartTicks, readLockHolder, sameProcessAlive } from '../../../src/store/lock.js';
import { parseVersion } from '../../../src/tmux/server.js';
export { pidAlive };

/**
 * SIGTERM, wait up to `graceMs` for it to go, then SIGKILL, and wait (up to 2 s) until it has
 * gone, so what the caller does next (removing a dead server's socket file) sees it gone.
 * Never signals pid ≤ 1. With `start` (processStartTicks when the pid was taken), only while
 * that pid still names the process it was taken from: the kernel hands a free pid out again
 * within minutes on a busy machine, and a pid remembered since a test began may by its cleanup
 * be another test's tmux server.
 */
export async function killPid(pid: number, graceMs = 3000, start?: string | null): Promise<void> {
  if (!sameProcessAlive(pid, start) || pid <= 1 || pid === process.pid) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && pidAlive(pid)) await new Promise((r) => setTimeout(r, 25));
  if (pidAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      return; // gone
    }
    const killed = Date.now() + 2000;
    while (Date.now() < killed && pidAlive(pid)) await new Promise((r) => setTimeout(r, 10));
  }
}

/** Whether pid runs `nerdr … supervise` now (by its command line): a pid kept since may be another process's. */
export function isSupervisor(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('supervise');
  } catch {
    return false;
  }
}

export interface LiveEnv {
  /** The -L name of the private tmux server. */
  readonly server: string;
  /** Its socket path, as tmux reports it (#{socket_path}). */
  readonly socketPath: string;
  /** The pid of the tmux server. */
  readonly serverPid: number;
  readonly stateDir: string;
  readonly configDir: string;
  readonly home: string;
  /** The environment every process gets (no TMUX, private dirs, UTF-8 locale). */
  readonly env: NodeJS.ProcessEnv;
  /** `node bin/nerdr.js -L <server> …args`. */
  nerdr(...args: string[]): Promise<RunResult>;
  /** The same with options (extra env, no -L, timeout, stdin). */
  nerdrWith(args: string[], opts?: RunOptions): Promise<RunResult>;
  /** `tmux -L <server> …args` (never starts a server of its own: the server exists). */
  tmux(...args: string[]): Promise<RunResult>;
  /** Like tmux() but throws with tmux's stderr on a non-zero exit; returns stdout. */
  tmuxOk(...args: string[]): Promise<string>;
  /** What `nerdr ls --json` prints, parsed: the supervisor's reply over its socket, else the CLI's (which starts one); throws when it fails. */
  lsJson(): Promise<AgentRowLike[]>;
  /** The running supervisor's pid: from its socket (what `supervisor status --json` prints), else the lock file. */
  supervisorPid(): Promise<number | null>;
  /** What the supervisors of this state dir logged (every `core-*.log` in it): what a failed test prints. */
  supervisorLog(): string;
  /** A pid the cleanup must end too (a process a test started). */
  track(pid: number): void;
  /** Stops the supervisor, tracked pids and the server; removes its socket file and the temp dirs. Idempotent. */
  cleanup(): Promise<void>;
}

/** A row of `nerdr ls --json`: the wire type, and whatever else a test looks for in it. */
export type AgentRowLike = AgentRow & Record<string, unknown>;

export interface StartOptions {
  /** Session name; default `user`. */
  session?: string;
  cols?: number;
  rows?: number;
  /** Variables added to the env of everything (tmux server included). */
  env?: Record<string, string>;
}

/** Lock files of supervisors in a state dir (one per tmux server; a test env has one server). */
function lockPids(stateDir: string): number[] {
  let names: string[] = [];
  try {
    names = readdirSync(stateDir);
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const n of names) {
    if (!/^supervisor-.*\.lock$/.test(n)) continue;
    // the holder while it runs: a lock left by a kill -9 names a pid that may be another process's now
    const pid = readLockHolder(path.join(stateDir, n));
    if (pid !== null) pids.push(pid);
  }
  return pids;
}

/** Starts a private tmux server with one session and returns the harness around it. */
export async function startLiveEnv(opts: StartOptions = {}): Promise<LiveEnv> {
  assertBuilt();
  const server = `nerdr-test-${randomBytes(6).toString('hex')}`;
  const root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-live-'));
  const stateDir = path.join(root, 'state');
  const configDir = path.join(root, 'config');
  const home = path.join(root, 'home');
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) {
    if (k === 'TMUX' || k === 'TMUX_PANE' || k.startsWith('NERDR_') || k.startsWith('HERDR_') || k.startsWith('XDG_')) delete env[k];
  }
  Object.assign(env, {
    HOME: home,
    NERDR_STATE_DIR: stateDir,
    NERDR_CONFIG_DIR: configDir,
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    SHELL: '/bin/sh',
    ...opts.env,
  });
  // the state folder private, as nerdr makes it (a group/other-readable one gets a warning)
  execFileSync('mkdir', ['-p', '-m', '700', stateDir]);
  for (const d of [configDir, home]) execFileSync('mkdir', ['-p', d]);

  const tmuxBase = ['-L', server, '-f', '/dev/null'];
  const tmuxRun = (...args: string[]): Promise<RunResult> => run('tmux', [...tmuxBase, ...args], { env, timeoutMs: 20_000 });
  const tmuxOk = async (...args: string[]): Promise<string> => {
    const r = await tmuxRun(...args);
    if (r.code !== 0) throw new Error(`tmux ${args.join(' ')} failed (${r.code}): ${r.stderr.trim()}`);
    return r.stdout;
  };

  const started = await tmuxRun('new-session', '-d', '-s', opts.session ?? 'user', '-x', String(opts.cols ?? 120), '-y', String(opts.rows ?? 40));
  if (started.code !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`cannot start the private tmux server ${server}: ${started.stderr.trim()}`);
  }
  const [socketPath = '', pidText = ''] = (await tmuxOk('display', '-p', '#{socket_path}\t#{pid}')).trim().split('\t');
  const serverPid = Number(pidText);
  const serverStart = processStartTicks(serverPid);
  /** Each pid a test handed over, with its process's start (see killPid). */
  const tracked = new Map<number, string | null>();
  let cleaned = false;

  const nerdrWith = (args: string[], o: RunOptions = {}): Promise<RunResult> => {
    let e: NodeJS.ProcessEnv = o.replaceEnv ? { ...o.replaceEnv } : { ...env };
    for (const [k, v] of Object.entries(o.env ?? {})) {
      if (v === undefined) delete e[k];
      else e[k] = v;
    }
    e = Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined));
    const full = o.noServer ? args : ['-L', server, ...args];
    return run(process.execPath, [NERDR_BIN, ...full], {
      env: e,
      ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
      ...(o.input !== undefined ? { input: o.input } : {}),
      timeoutMs: o.timeoutMs ?? 30_000,
    });
  };
  const nerdr = (...args: string[]): Promise<RunResult> => nerdrWith(args);

  // What `nerdr ls --json` and `supervisor status --json` print is the supervisor's reply as it
  // is: asked over its socket from this process, a wait that polls costs no node start each time
  // (on 2 cores, a `nerdr ls` every 50 ms per test was most of the CPU the live tests used)
  const socketFile = serverFiles(socketPath, env).socket;
  const ask = async (method: string): Promise<unknown> => {
    try {
      return await request(socketFile, method, {}, { timeoutMs: 10_000 });
    } catch (err) {
      // none answers, or the one that did went away mid-request (a kill -9): the CLI's turn
      if (err instanceof SocketRequestError && ['server_not_running', 'connection_failed', 'connection_closed', 'timeout'].includes(err.code)) return undefined;
      throw err;
    }
  };

  const supervisorPid = async (): Promise<number | null> => {
    const info = (await ask('nerdr.info').catch(() => undefined)) as { pid?: number } | undefined;
    if (typeof info?.pid === 'number') return info.pid;
    const r = await nerdrWith(['supervisor', 'status', '--json'], { timeoutMs: 10_000 }).catch(() => null);
    if (r && r.code === 0) {
      try {
        const j = JSON.parse(r.stdout) as { running?: boolean; pid?: number };
        if (j.running && typeof j.pid === 'number') return j.pid;
      } catch {
        /* fall back to the lock */
      }
    }
    return lockPids(stateDir).find(pidAlive) ?? null;
  };

  const live: LiveEnv = {
    server,
    socketPath,
    serverPid,
    stateDir,
    configDir,
    home,
    env,
    nerdr,
    nerdrWith,
    tmux: tmuxRun,
    tmuxOk,
    async lsJson() {
      // no supervisor answers: the CLI, which starts one when there are windows to watch
      const reply = (await ask('nerdr.ls')) as { agents: AgentRowLike[] } | undefined;
      if (reply) return reply.agents;
      const r = await nerdr('ls', '--json');
      if (r.code !== 0) throw new Error(`nerdr ls --json exited ${r.code}: ${r.stderr.trim()}`);
      return JSON.parse(r.stdout) as AgentRowLike[];
    },
    supervisorPid,
    supervisorLog() {
      return readdirSync(stateDir)
        .filter((f) => /^core-.*\.log$/.test(f))
        .map((f) => readFileSync(path.join(stateDir, f), 'utf8'))
        .join('');
    },
    track(pid: number) {
      if (!tracked.has(pid)) tracked.set(pid, processStartTicks(pid));
    },
    async cleanup() {
      if (cleaned) return;
      cleaned = true;
      const pids = new Map<number, string | null>(tracked);
      // both as they are now: the one that answers on its socket, and a holder of a lock whose start is checked
      const sup = await supervisorPid().catch(() => null);
      if (sup && !pids.has(sup)) pids.set(sup, processStartTicks(sup));
      for (const p of lockPids(stateDir)) if (!pids.has(p)) pids.set(p, processStartTicks(p));
      await Promise.all([...pids].map(([p, start]) => killPid(p, 3000, start)));
      await tmuxRun('kill-server').catch(() => undefined);
      // the server itself, should kill-server not have reached it
      if (serverPid > 0) {
        const deadline = Date.now() + 3000;
        while (Date.now() < deadline && pidAlive(serverPid)) await new Promise((r) => setTimeout(r, 25));
        if (pidAlive(serverPid)) await killPid(serverPid, 500, serverStart);
      }
      // tmux leaves its socket file behind after kill-server
      if (socketPath && !sameProcessAlive(serverPid, serverStart)) rmSync(socketPath, { force: true });
      rmSync(root, { recursive: true, force: true });
    },
  };
  return live;
}

/** The environment of a process, from /proc (Linux): e.g. an agent pane's NERDR_TAB / NERDR_SOCKET. */
export function processEnv(pid: number | string): Record<string, string> {
  const raw = readFileSync(`/proc/${pid}/environ`, 'utf8');
  return Object.fromEntries(
    raw
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

/**
 * The environment of process `pid`, a pane's program, once it runs: until tmux's child has
 * exec'd it, /proc shows the environment of the tmux server (`serverPid`) it was forked with (CI
 * read a window's environment without its NERDR_TAB once, right after `nerdr new`; and a holder
 * respawned by its hook without its variables), and in the exec itself none at all.
 */
export async function programEnv(pid: number | string, serverPid: number, what = `process ${pid} to start`): Promise<Record<string, string>> {
  const exe = (p: number | string): string | null => {
    try {
      return readlinkSync(`/proc/${p}/exe`);
    } catch {
      return null;
    }
  };
  const server = exe(serverPid);
  return waitFor(() => {
    const mine = exe(pid);
    if (mine === null || mine === server) return undefined;
    const env = processEnv(pid);
    return Object.keys(env).length ? env : undefined;
  }, { what, timeoutMs: 5000 });
}

/** The environment of the program running in a pane (programEnv of its pane pid). */
export async function paneEnv(env: LiveEnv, target: string): Promise<Record<string, string>> {
  const pid = (await env.tmuxOk('display', '-p', '-t', target, '#{pane_pid}')).trim();
  return programEnv(pid, env.serverPid, `the program of ${target} to start`);
}
