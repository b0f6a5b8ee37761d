// `nerdr hook <agent>`: hands one agent hook event to the supervisor and gets out of the way.
//
// This runs on the agents' hot path (Claude runs it on every tool call), so it imports builtins
// only. Whatever happens it prints nothing on stdout and exits 0 within ~500 ms: hook stdout is
// data for several agents, and a non-zero exit can block a tool call or force another turn.
//
// Sends exactly one line to $NERDR_SOCKET:
//   {"id":"hook:<pid>","method":"nerdr.hook","params":{"secret":$NERDR_TAB,"agent":<agent>,"event":<stdin JSON>}}
// When the payload cannot be used, `event` is null and `dropped` says why
// ("too_large" over 1 MiB, "malformed" not a JSON object / not UTF-8, "empty").

import { connect } from 'node:net';
import process from 'node:process';
import { decodePayload as decode, MAX_PAYLOAD_BYTES, type Payload } from '../integrations/payload.js';

export const HOOK_DEADLINE_MS = 500;
export { MAX_PAYLOAD_BYTES };

export interface HookRunOptions {
  agent: string | undefined;
  /** The event name, for agents whose payload does not carry it (`nerdr hook copilot preToolUse`). */
  eventName?: string | undefined;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream;
  /** The payload given as an argument instead of on stdin (Codex's notify program gets it so). */
  argPayload?: string | undefined;
  /** Total time budget. Default 500 ms. */
  deadlineMs?: number;
  /** Diagnostics sink (stderr when NERDR_HOOK_DEBUG=1). */
  debug?: (msg: string) => void;
}

export type HookOutcome = 'outside_nerdr' | 'sent' | 'no_secret' | 'unreachable' | 'timeout';


/** Reads stdin up to the cap; resolves early (with what it has) if `stopAt` passes. */
function readPayload(stdin: NodeJS.ReadableStream, stopAfterMs: number): Promise<Payload> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stdin.removeListener('data', onData);
      stdin.removeListener('end', settle);
      stdin.removeListener('error', settle);
      resolve(tooLarge ? { json: null, dropped: 'too_large' } : decode(Buffer.concat(chunks, size)));
    };
    const onData = (chunk: Buffer | string) => {
      if (tooLarge) return; // keep draining so the agent's write does not fail, but hold nothing
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (size + b.length > MAX_PAYLOAD_BYTES) {
        tooLarge = true;
        chunks.length = 0;
        size = 0;
        // The payload is lost anyway: do not wait for the rest of it.
        settle();
        return;
      }
      chunks.push(b);
      size += b.length;
    };
    // stdin that never ends (a TTY, an agent that keeps the pipe open): use what arrived.
    const timer = setTimeout(settle, stopAfterMs);
    stdin.on('data', onData);
    stdin.once('end', settle);
    stdin.once('error', settle);
    stdin.resume?.();
  });
}

/** Connects, writes the line, waits for the reply (or close). Never rejects. */
function send(path: string, line: string, untilMs: number): Promise<HookOutcome> {
  return new Promise((resolve) => {
    let done = false;
    const sock = connect(path);
    const finish = (o: HookOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => finish('timeout'), Math.max(0, untilMs));
    sock.on('connect', () => sock.write(line));
    // Any reply byte means the supervisor has the line; its content does not matter here.
    sock.on('data', () => finish('sent'));
    sock.on('close', () => finish('sent'));
    sock.on('error', () => finish('unreachable'));
  });
}

/** The whole hook, testable without spawning. Never throws. */
export async function runHook(opts: HookRunOptions): Promise<HookOutcome> {
  const start = Date.now();
  const deadline = opts.deadlineMs ?? HOOK_DEADLINE_MS;
  const debug = opts.debug ?? (() => {});
  try {
    const socketPath = opts.env.NERDR_SOCKET;
    if (!socketPath) return 'outside_nerdr';
    const secret = opts.env.NERDR_TAB ?? opts.env.HERDR_PANE_ID;
    if (!secret) {
      debug('NERDR_TAB is not set: nothing to report');
      return 'no_secret';
    }
    const agent = (opts.agent ?? '').trim() || 'unknown';
    // Leave at least half the budget for the socket.
    const payload =
      opts.argPayload !== undefined
        ? decode(Buffer.from(opts.argPayload))
        : await readPayload(opts.stdin, Math.floor(deadline / 2));
    const head = JSON.stringify({ id: `hook:${process.pid}`, method: 'nerdr.hook' });
    const params =
      `{"secret":${JSON.stringify(secret)},"agent":${JSON.stringify(agent)},"event":${payload.json ?? 'null'}` +
      (payload.dropped ? `,"dropped":${JSON.stringify(payload.dropped)}` : '') +
      (opts.eventName ? `,"hint":${JSON.stringify(opts.eventName.slice(0, 64))}` : '') +
      '}';
    const line = `${head.slice(0, -1)},"params":${params}}\n`;
    const outcome = await send(socketPath, line, deadline - (Date.now() - start) - 20);
    debug(`nerdr hook ${agent}: ${outcome}${payload.dropped ? ` (payload ${payload.dropped})` : ''}`);
    return outcome;
  } catch (e) {
    debug(`nerdr hook: ${e instanceof Error ? e.message : String(e)}`);
    return 'unreachable';
  }
}

async function main(): Promise<void> {
  // Hard stop, whatever is still pending.
  setTimeout(() => process.exit(0), HOOK_DEADLINE_MS + 50).unref();
  process.on('uncaughtException', () => process.exit(0));
  process.on('unhandledRejection', () => process.exit(0));
  process.stdout.on('error', () => {});
  const [, , , agent, eventName, argPayload] = process.argv;
  // agy reads a JSON object from its hooks' stdout; every other agent gets nothing.
  if (agent === 'agy') process.stdout.write('{}\n');
  if (!process.env.NERDR_SOCKET) process.exit(0);
  const debug = process.env.NERDR_HOOK_DEBUG === '1' ? (m: string) => process.stderr.write(`${m}\n`) : undefined;
  await runHook({ agent, eventName, ...(argPayload !== undefined ? { argPayload } : {}), env: process.env, stdin: process.stdin, ...(debug ? { debug } : {}) });
  process.exit(0);
}

// bin/nerdr.js imports this module only for `nerdr hook`; tests import it for runHook().
if (process.argv[2] === 'hook') void main();
