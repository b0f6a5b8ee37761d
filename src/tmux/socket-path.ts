// Which tmux server a command means, and the short key nerdr names its files by. Builtins only:
// the CLI's fast reads (src/cli/read-fast.ts) load this without the rest of src/tmux/server.ts.

import path from 'node:path';
import { NerdrError } from '../errors.js';

export interface ServerChoice {
  /** -L NAME */
  name?: string | undefined;
  /** -S PATH */
  socket?: string | undefined;
}

/** The socket path of the tmux server, exactly as tmux itself resolves -L, -S and $TMUX. */
export function resolveSocket(choice: ServerChoice, env: NodeJS.ProcessEnv = process.env): string {
  if (choice.socket) return path.resolve(choice.socket);
  const tmpdir = env.TMUX_TMPDIR || '/tmp';
  const uid = process.getuid ? process.getuid() : 0;
  if (choice.name) return path.join(tmpdir, `tmux-${uid}`, choice.name);
  if (env.NERDR_TMUX_SOCKET) return env.NERDR_TMUX_SOCKET;
  if (env.TMUX) {
    const sock = env.TMUX.split(',')[0];
    if (sock) return sock;
  }
  throw new NerdrError(
    'not inside tmux, and no tmux server was named',
    'start tmux first (`tmux new -s work`) and run nerdr inside it, or name a server with -L NAME / -S PATH',
  );
}

/** A short name for the server, used in file names (log, lock). */
export function serverKey(socketPath: string): string {
  const base = path.basename(socketPath).replace(/[^A-Za-z0-9._-]/g, '_');
  let h = 0;
  for (const ch of socketPath) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return `${base}-${h.toString(16).padStart(8, '0').slice(0, 8)}`;
}
