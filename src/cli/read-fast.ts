// The reads scripts poll — `nerdr ls --json`, `nerdr status`, `nerdr status --json` — answered
// with Node's builtins and the socket client alone: no commander and no command modules, which
// cost such a read about a third of its time (docs/performance.md, "`nerdr ls`"). bin/nerdr.js
// tries this first for a command line that names ls or status.
//
// Only the exact forms below are answered here, and only by a supervisor that answers: anything
// else (another flag, no supervisor yet, the server's name from a flag this does not know) goes
// to the full CLI, which starts a supervisor or says what is wrong as every command does. What is
// printed is what the full CLI prints (src/cli/ls.ts uses the same functions).

import { report, socketError } from '../errors.js';
import { request, SocketRequestError } from '../supervisor/socket/client.js';
import { visible } from '../text.js';
import { serverFiles } from '../paths.js';
import { resolveSocket, type ServerChoice } from '../tmux/socket-path.js';
import { printJson } from './print.js';

/** `nerdr status`: the states in this order, each with its glyph. */
const STATE_ORDER = ['blocked', 'done', 'limited', 'working', 'idle', 'unknown', 'exited'];
const STATE_GLYPH: Record<string, string> = { blocked: '✋', done: '✓', limited: '◷', working: '⏳', idle: '○', unknown: '◌', exited: '✕' };

export interface StatusCounts {
  counts: Record<string, number>;
  total: number;
}

/** `nerdr status`'s one line: `✋1 blocked  ⏳2 working`, or `no agents`. */
export function statusLine(s: StatusCounts): string {
  const parts = STATE_ORDER.filter((k) => s.counts[k]).map((k) => `${STATE_GLYPH[k]}${s.counts[k]} ${k}`);
  return parts.length ? parts.join('  ') : 'no agents';
}

export interface FastRead {
  server: ServerChoice;
  method: 'nerdr.ls' | 'nerdr.status';
  /** Prints the supervisor's result. */
  print(result: unknown): void;
}

/**
 * The read a command line (the arguments after `nerdr`) asks for, when it is one of the forms
 * this answers: `[-L NAME | -S PATH] ls --json`, `… status`, `… status --json`. Null otherwise.
 */
export function parseFastRead(args: readonly string[]): FastRead | null {
  const server: ServerChoice = {};
  let i = 0;
  for (; i + 1 < args.length && (args[i] === '-L' || args[i] === '-S'); i += 2) {
    const value = args[i + 1]!;
    if (value.startsWith('-') || server.name !== undefined || server.socket !== undefined) return null;
    if (args[i] === '-L') server.name = value;
    else server.socket = value;
  }
  const rest = args.slice(i);
  const form = rest.join(' ');
  if (rest.some((a) => a.includes(' '))) return null;
  if (form === 'ls --json') return { server, method: 'nerdr.ls', print: (r) => printJson((r as { agents: unknown[] }).agents) };
  if (form === 'status --json') return { server, method: 'nerdr.status', print: printJson };
  if (form === 'status') return { server, method: 'nerdr.status', print: (r) => void process.stdout.write(statusLine(r as StatusCounts) + '\n') };
  return null;
}

/**
 * Answers the read and prints it; false when the full CLI should run the command instead (not
 * such a read, no supervisor answers, or the server cannot be named without it).
 */
export async function runFastRead(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const read = parseFastRead(args);
  if (!read) return false;
  let socketFile: string;
  try {
    socketFile = serverFiles(resolveSocket(read.server, env), env).socket;
  } catch {
    return false; // not inside tmux and no server named: the full CLI says so
  }
  let result: unknown;
  try {
    result = await request(socketFile, read.method, {}, { timeoutMs: 10_000 });
  } catch (err) {
    // none answers: the full CLI starts one (or answers "no agents" on a server without nerdr windows)
    if (!(err instanceof SocketRequestError) || err.code === 'server_not_running') return false;
    // it answered with an error, or not in time: said as every command says it
    const out = report(socketError(err), env.NERDR_DEBUG === '1');
    process.stderr.write(visible(out.text, { lines: true }));
    process.exitCode = out.exit;
    return true;
  }
  // `nerdr ls --json | head`: a reader that stops early is no error (as in main.ts)
  process.stdout.once('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  read.print(result);
  return true;
}
