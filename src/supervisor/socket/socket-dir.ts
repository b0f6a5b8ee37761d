// The socket's folder is private to the user: created 0700, and refused when it exists with
// group/other bits or another owner. A leftover socket file is removed only when nothing
// answers on it.

import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { SocketSetupError } from './errors.js';

function errCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code;
}

/** Creates the socket's parent folder (0700) or checks that the existing one is private. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  let st;
  try {
    st = await lstat(dir);
  } catch (e) {
    if (errCode(e) !== 'ENOENT') throw e;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // mkdir's mode passes through the umask; make the last folder exactly 0700.
    await chmod(dir, 0o700);
    return;
  }
  if (st.isSymbolicLink()) {
    throw new SocketSetupError(`refusing to serve: socket folder ${dir} is a symbolic link`, `use a real folder, or remove the link`);
  }
  if (!st.isDirectory()) {
    throw new SocketSetupError(`refusing to serve: ${dir} is not a folder`, `remove it or choose another state folder`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new SocketSetupError(
      `refusing to serve: socket folder ${dir} belongs to uid ${st.uid}, not to you (uid ${uid})`,
      `use a state folder of your own (NERDR_STATE_DIR)`,
    );
  }
  const mode = st.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new SocketSetupError(
      `refusing to serve: socket folder ${dir} is open to group/others (mode ${mode.toString(8).padStart(4, '0')})`,
      `run: chmod 700 ${JSON.stringify(dir)}`,
    );
  }
}

/** Resolves true when something accepts a connection on `path` within `timeoutMs`. */
export function socketAnswers(path: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    const done = (alive: boolean) => {
      clearTimeout(t);
      s.destroy();
      resolve(alive);
    };
    // A listener that never accepts is still a listener: treat a hang as alive.
    const t = setTimeout(() => done(true), timeoutMs);
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** Makes `path` free to bind: removes a stale socket, refuses a live one or any other file. */
export async function clearStaleSocket(path: string): Promise<void> {
  let st;
  try {
    st = await lstat(path);
  } catch (e) {
    if (errCode(e) === 'ENOENT') return;
    throw e;
  }
  if (!st.isSocket()) {
    throw new SocketSetupError(`refusing to serve: ${path} exists and is not a socket`, `move that file away`);
  }
  if (await socketAnswers(path)) {
    throw new SocketSetupError(`refusing to serve: a supervisor already answers on ${path}`, `use that one, or stop it first`);
  }
  try {
    await unlink(path);
  } catch (e) {
    if (errCode(e) !== 'ENOENT') throw e;
  }
}

export async function prepareSocketPath(path: string): Promise<void> {
  await ensurePrivateDir(dirname(path));
  await clearStaleSocket(path);
}
