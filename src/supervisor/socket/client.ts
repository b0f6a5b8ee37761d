// A small client for the CLI: one connection per request, as the protocol wants.

import { connect, type Socket } from 'node:net';
import { stringifyExact } from './exact-json.js';

/** Why a request failed. `code` is the server's error code, or one of the client-side ones:
 * `server_not_running` (no socket / nobody listening), `timeout`, `connection_closed`,
 * `invalid_response`. */
export class SocketRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The server's whole error reply, when there was one. */
    readonly response?: unknown,
    /** The reply's `fix`: what the user can do about it (nerdr's supervisor; herdr sends none). */
    readonly fix?: string,
  ) {
    super(message);
    this.name = 'SocketRequestError';
  }
}

export interface RequestOptions {
  /** Whole-request deadline. Default 5000 ms; 0 waits for ever (e.g. `nerdr.wait`). */
  timeoutMs?: number;
  /** Request id. Default `cli:request`. */
  id?: string;
  /** Abort: closes the connection, which also ends the server-side wait. */
  signal?: AbortSignal;
}

let counter = 0;
function nextId(): string {
  counter += 1;
  return `cli:${process.pid}:${counter}`;
}

interface Exchange {
  sock: Socket;
  /** The first reply line, parsed. */
  first: Promise<Record<string, unknown>>;
  /** Every line after the first. */
  onLine(fn: (msg: unknown) => void): void;
  /** Resolves when the connection closes. */
  closed: Promise<void>;
}

function open(path: string, line: string, opts: RequestOptions): Exchange {
  const sock = connect(path);
  let buf = '';
  let gotFirst = false;
  let lineFn: ((msg: unknown) => void) | undefined;
  const pending: unknown[] = [];
  let resolveFirst!: (v: Record<string, unknown>) => void;
  let rejectFirst!: (e: Error) => void;
  const first = new Promise<Record<string, unknown>>((res, rej) => {
    resolveFirst = res;
    rejectFirst = rej;
  });
  first.catch(() => {});
  const timeoutMs = opts.timeoutMs ?? 5000;
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          rejectFirst(new SocketRequestError('timeout', `no answer from ${path} within ${timeoutMs} ms`));
          sock.destroy();
        }, timeoutMs)
      : undefined;
  const onAbort = () => {
    rejectFirst(new SocketRequestError('aborted', 'request aborted'));
    sock.destroy();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  sock.setEncoding('utf8');
  sock.on('connect', () => sock.write(line));
  sock.on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const text = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (text.trim() === '') continue;
      let msg: unknown;
      try {
        msg = JSON.parse(text);
      } catch {
        rejectFirst(new SocketRequestError('invalid_response', `unparseable reply: ${text.slice(0, 200)}`));
        sock.destroy();
        return;
      }
      if (!gotFirst) {
        gotFirst = true;
        if (timer) clearTimeout(timer);
        if (msg === null || typeof msg !== 'object') {
          rejectFirst(new SocketRequestError('invalid_response', 'reply is not an object'));
          sock.destroy();
          return;
        }
        resolveFirst(msg as Record<string, unknown>);
      } else if (lineFn) lineFn(msg);
      else pending.push(msg);
    }
  });
  const closed = new Promise<void>((res) => {
    sock.on('close', () => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      rejectFirst(new SocketRequestError('connection_closed', `${path} closed the connection without answering`));
      res();
    });
  });
  sock.on('error', (e: NodeJS.ErrnoException) => {
    const notRunning = e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === 'ENOTSOCK';
    rejectFirst(
      notRunning
        ? new SocketRequestError('server_not_running', `nerdr supervisor is not running (no socket at ${path})`)
        : new SocketRequestError('connection_failed', `${path}: ${e.message}`),
    );
  });
  return {
    sock,
    first,
    closed,
    onLine(fn) {
      lineFn = fn;
      for (const m of pending.splice(0)) fn(m);
    },
  };
}

function resultOf(reply: Record<string, unknown>): unknown {
  if ('error' in reply) {
    const err = (reply.error ?? {}) as { code?: unknown; message?: unknown; fix?: unknown };
    throw new SocketRequestError(
      typeof err.code === 'string' ? err.code : 'unknown_error',
      typeof err.message === 'string' ? err.message : 'request failed',
      reply,
      typeof err.fix === 'string' && err.fix !== '' ? err.fix : undefined,
    );
  }
  return reply.result;
}

function requestLine(method: string, params: unknown, id: string): string {
  // Exact bigints: a u64 `seq` must reach the server digit for digit.
  return stringifyExact({ id, method, params: params ?? {} }) + '\n';
}

/** Sends one request and resolves with its `result` (rejects with SocketRequestError). */
export async function request(path: string, method: string, params: unknown = {}, opts: RequestOptions = {}): Promise<unknown> {
  const ex = open(path, requestLine(method, params, opts.id ?? nextId()), opts);
  try {
    return resultOf(await ex.first);
  } finally {
    ex.sock.end();
  }
}

export interface Subscription {
  /** The first reply's `result` (e.g. `{"type":"subscription_started"}`). */
  result: unknown;
  /** Every pushed line, in order; ends when the server closes the stream or `close()` is called. */
  events: AsyncIterable<unknown>;
  /** Resolves when the connection is closed. */
  closed: Promise<void>;
  close(): void;
}

/**
 * Starts a stream (e.g. `nerdr.subscribe`): resolves once the first reply arrives, then yields
 * each pushed line. `timeoutMs` applies to the first reply only.
 */
export async function subscribe(path: string, method: string, params: unknown = {}, opts: RequestOptions = {}): Promise<Subscription> {
  const ex = open(path, requestLine(method, params, opts.id ?? nextId()), opts);
  let result: unknown;
  try {
    result = resultOf(await ex.first);
  } catch (e) {
    ex.sock.destroy();
    throw e;
  }
  const queue: unknown[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  ex.onLine((m) => {
    queue.push(m);
    wake?.();
  });
  void ex.closed.then(() => {
    ended = true;
    wake?.();
  });
  const events: AsyncIterable<unknown> = {
    [Symbol.asyncIterator]() {
      return {
        async next(): Promise<IteratorResult<unknown>> {
          for (;;) {
            if (queue.length > 0) return { value: queue.shift(), done: false };
            if (ended) return { value: undefined, done: true };
            await new Promise<void>((r) => (wake = r));
            wake = undefined;
          }
        },
        async return(): Promise<IteratorResult<unknown>> {
          ex.sock.destroy();
          return { value: undefined, done: true };
        },
      };
    },
  };
  return { result, events, closed: ex.closed, close: () => ex.sock.destroy() };
}
