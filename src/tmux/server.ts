// Which tmux server nerdr talks to, one-shot tmux commands, and the version check.

import { execFile } from 'node:child_process';
import { mkdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { NerdrError } from '../errors.js';
import { argvSafe } from './quote.js';

// which server: in a module of builtins alone, for the CLI's fast reads (src/cli/read-fast.ts)
export { resolveSocket, serverKey, type ServerChoice } from './socket-path.js';

export const MIN_TMUX = [3, 2] as const;

/**
 * Flags first in the argv of every tmux client whose output nerdr reads. `-u`: a client whose
 * LC_ALL, LC_CTYPE or LANG (the first one set) names no UTF-8 — started by cron, systemd, or ssh
 * without AcceptEnv — is taken for a non-UTF-8 terminal, and tmux turns every tab, control
 * character and non-ASCII character it prints to it into `_` (utf8_sanitize): the tabs nerdr
 * splits replies on, the escapes of `capture-pane -e`, and any text the user wrote. With `-u`
 * tmux sends them as they are, whatever locale nerdr inherited; every tmux nerdr supports has it.
 * A client that attaches for the user (`nerdr next`, `nerdr demo`) goes without: it draws on the
 * user's terminal, which the locale describes, as in any tmux the user starts.
 */
export const CLIENT_FLAGS: readonly string[] = ['-u'];

/** The argv of a tmux client nerdr reads: CLIENT_FLAGS, then the server (`-S PATH`, `-L NAME`, `-N`), then the command. */
export function tmuxArgv(server: readonly string[], args: readonly string[]): string[] {
  return [...CLIENT_FLAGS, ...server, ...args];
}

export interface TmuxResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `tmux -u -N -S socket args…` once. Arguments are argv, never a shell string. `-N` keeps a
 * command from starting a server by accident; `startServer` leaves it out (new-session).
 */
export function tmux(socketPath: string, args: string[], opts: { input?: string; startServer?: boolean } = {}): Promise<TmuxResult> {
  // a server started here gets this process's environment as its global one, without the
  // TMUX/TMUX_PANE of a tmux this process may run inside
  let env: NodeJS.ProcessEnv | undefined;
  if (opts.startServer && (process.env.TMUX !== undefined || process.env.TMUX_PANE !== undefined)) {
    env = { ...process.env };
    delete env.TMUX;
    delete env.TMUX_PANE;
  }
  // tmux makes its socket folder (tmux-<uid>, 0700) only for -L; with -S a server started on a
  // machine that never ran tmux would fail to listen, so the folder is made here
  if (opts.startServer) mkdirSync(path.dirname(socketPath), { recursive: true, mode: 0o700 });
  return new Promise((resolve, reject) => {
    const child = execFile(
      'tmux',
      tmuxArgv([...(opts.startServer ? [] : ['-N']), '-S', socketPath], args),
      { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8', ...(env ? { env } : {}) },
      (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(tmuxMissing());
          return;
        }
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** Like tmux(), but a non-zero exit becomes an error carrying tmux's own words. */
export async function tmuxOk(socketPath: string, args: string[], opts: { startServer?: boolean } = {}): Promise<string> {
  const r = await tmux(socketPath, args, opts);
  if (r.code !== 0) throw new NerdrError(`tmux ${args[0]} failed: ${r.stderr.trim() || `exit ${r.code}`}`, undefined, { code: 'tmux_command' });
  return r.stdout;
}

export async function serverRunning(socketPath: string): Promise<boolean> {
  const r = await tmux(socketPath, ['list-sessions', '-F', '#{session_id}']);
  return r.code === 0;
}

function tmuxMissing(): NerdrError {
  return new NerdrError('tmux is not installed', installHint());
}

function installHint(): string {
  return 'install tmux 3.2 or newer: `sudo apt-get install -y tmux` (Debian/Ubuntu), `brew install tmux` (macOS), `sudo dnf install tmux` (Fedora)';
}

export function parseVersion(text: string): [number, number, string] | null {
  const m = /(\d+)\.(\d+)([a-z]?)/.exec(text);
  if (!m) return /master|next/.test(text) ? [99, 0, ''] : null;
  return [Number(m[1]), Number(m[2]), m[3] ?? ''];
}

/**
 * The binary a running tmux server was started from (Linux: /proc/<pid>/exe), so a client nerdr
 * starts speaks the server's protocol even when another tmux is first on PATH; null when unknown
 * (no /proc, or the binary was replaced since).
 */
export function serverBinary(pid: number): string | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const exe = readlinkSync(`/proc/${pid}/exe`);
    return exe.endsWith(' (deleted)') ? null : exe;
  } catch {
    return null;
  }
}

let versionCache: string | undefined;

/** Checks `tmux -V` once per process: ≥ 3.2 or an error naming the fix. */
export async function checkTmuxVersion(): Promise<string> {
  if (versionCache) return versionCache;
  const text = await new Promise<string>((resolve, reject) => {
    execFile('tmux', ['-V'], { encoding: 'utf8' }, (err, stdout) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') reject(tmuxMissing());
      else if (err) reject(new NerdrError(`tmux -V failed: ${err.message}`, installHint()));
      else resolve(stdout.trim());
    });
  });
  const v = parseVersion(text);
  if (!v) throw new NerdrError(`cannot read the tmux version from "${text}"`, installHint());
  if (v[0] < MIN_TMUX[0] || (v[0] === MIN_TMUX[0] && v[1] < MIN_TMUX[1])) {
    throw new NerdrError(`${text} found; nerdr needs tmux 3.2 or newer`, installHint());
  }
  versionCache = text;
  return text;
}

/** Every argument made safe for tmux's argv parsing (see argvSafe). */
export function argvSafeAll(args: string[]): string[] {
  return args.map(argvSafe);
}
