// Where nerdr keeps things (docs/architecture.md, "Where things live").

import { chmodSync, existsSync, lstatSync, mkdirSync, realpathSync, type Stats } from 'node:fs';
import { NerdrError } from './errors.js';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverKey } from './tmux/socket-path.js';

export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NERDR_STATE_DIR) return path.resolve(env.NERDR_STATE_DIR);
  if (env.XDG_STATE_HOME) return path.join(env.XDG_STATE_HOME, 'nerdr');
  return path.join(env.HOME || os.homedir(), '.local', 'state', 'nerdr');
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NERDR_CONFIG_DIR) return path.resolve(env.NERDR_CONFIG_DIR);
  if (env.XDG_CONFIG_HOME) return path.join(env.XDG_CONFIG_HOME, 'nerdr');
  return path.join(env.HOME || os.homedir(), '.config', 'nerdr');
}

/**
 * The state dir, created private (0700) if missing. It holds the supervisor's socket and the
 * windows' secrets, so a folder that is a link, not a folder or someone else's is refused at once
 * with the fix; one open to group/others is made private, and `warn` says so.
 */
export function ensureStateDir(env: NodeJS.ProcessEnv = process.env, warn: (message: string) => void = () => undefined): string {
  const dir = stateDir(env);
  const st = lstatOrNull(dir);
  if (!st) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // mkdir's mode passes through the umask
    return dir;
  }
  const refused = stateDirRefusal(dir, st);
  if (refused) throw refused;
  if ((st.mode & 0o077) !== 0) {
    chmodSync(dir, 0o700);
    warn(`the state folder ${dir} was open to group/others (mode ${modeText(st.mode)}): it is private (0700) now; check that its files are yours (ls -la ${JSON.stringify(dir)})`);
  }
  return dir;
}

/**
 * What is wrong with the state folder as it is, without changing it (for `nerdr doctor`): a
 * refusal, one open to group/others, or null when it is fine or not made yet.
 */
export function stateDirProblem(env: NodeJS.ProcessEnv = process.env): NerdrError | null {
  const dir = stateDir(env);
  const st = lstatOrNull(dir);
  if (!st) return null;
  const refused = stateDirRefusal(dir, st);
  if (refused) return refused;
  if ((st.mode & 0o077) !== 0) return new NerdrError(`the state folder ${dir} is open to group/others (mode ${modeText(st.mode)})`, `chmod 700 ${JSON.stringify(dir)}`);
  return null;
}

/** Why a state folder that exists cannot be used at all: a link, not a folder, someone else's. */
function stateDirRefusal(dir: string, st: Stats): NerdrError | null {
  if (st.isSymbolicLink()) {
    let real = '';
    try {
      real = realpathSync(dir);
    } catch {
      /* a dangling link */
    }
    return new NerdrError(
      `the state folder ${dir} is a symbolic link${real ? ` (to ${real})` : ''}; nerdr keeps its socket and secrets only in a real folder`,
      real ? `set NERDR_STATE_DIR=${real}, or replace the link with a folder` : 'replace the link with a folder, or set NERDR_STATE_DIR',
    );
  }
  if (!st.isDirectory()) return new NerdrError(`the state folder ${dir} is not a folder`, 'move that file away, or set NERDR_STATE_DIR to a folder of your own');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    return new NerdrError(
      `the state folder ${dir} belongs to uid ${st.uid}, not to you (uid ${uid})`,
      'set NERDR_STATE_DIR to a folder of your own, or give this one back to yourself with chown',
    );
  }
  return null;
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function modeText(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

/**
 * Present after `nerdr tmux uninstall`: the supervisor then leaves the user's status formats
 * alone on every tmux server, until `nerdr tmux install` removes it.
 */
export function lightsOffFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDir(env), 'lights-uninstalled');
}

/**
 * Per tmux server: the supervisor's socket, log and lock, and the hook spool, which
 * hooks/nerdr-hook finds from the socket's path (<dir>/nerdr-<key>.sock → <dir>/spool/<key>).
 */
export function serverFiles(socketPath: string, env: NodeJS.ProcessEnv = process.env) {
  const dir = stateDir(env);
  const key = serverKey(socketPath);
  return {
    dir,
    key,
    socket: path.join(dir, `nerdr-${key}.sock`),
    log: path.join(dir, `core-${key}.log`),
    lock: path.join(dir, `supervisor-${key}.lock`),
    /** The supervisor's recent starts and how they ended (src/supervisor/holder.ts). */
    starts: path.join(dir, `supervisor-${key}.starts.json`),
    /** Held by the one command that starts the supervisor while others wait (src/cli/context.ts). */
    starting: path.join(dir, `starting-${key}.lock`),
    spool: path.join(dir, 'spool', key),
    /** Inbox rows snoozed until a time (src/inbox/snooze.ts). */
    snoozes: path.join(dir, `inbox-${key}.snoozed.json`),
  };
}

/**
 * The package root (holds manifests/, hooks/, bin/): the nearest folder above this module with
 * bin/nerdr.js. This module is src/paths.ts, dist/paths.js, or a chunk of dist/bundle/.
 */
export const packageRoot = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'bin', 'nerdr.js'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, '..');
  }
}

export const nerdrBin = path.join(packageRoot, 'bin', 'nerdr.js');
