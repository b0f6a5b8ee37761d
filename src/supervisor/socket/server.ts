// nerdr's socket: JSON lines over a Unix socket, herdr-compatible (docs/socket-protocol.md).
//
// One request per connection: the server reads lines until one parses as a request, answers
// it and closes — except for streams, which stay open after their first reply and push further
// lines until either side closes. A line that does not parse gets an error reply with `id: ""`
// and the connection stays usable. Everything is incremental: no connection costs more than
// parsing its own line.
//
// Limits (docs/socket-protocol.md "Limits and faults"): a line is at most 1 MiB; all partial
// lines together hold at most 64 MiB (a connection that would need more is answered
// `overloaded` and closed); a connection must deliver its request within 10 s of being
// accepted, however steadily it trickles bytes; at most 4096 connections.

import { createServer, type Server, type Socket } from 'node:net';
import { lstat, chmod, unlink } from 'node:fs/promises';
import { RpcError, asRpcError, invalidRequest } from './errors.js';
import { stringifyExact } from './exact-json.js';
import { isHerdrReportMethod, parseHerdrReport, type ParsedReport } from './herdr.js';
import { authenticateHook } from './hook-params.js';
import { ByteBudget, LineReader } from './line-reader.js';
import { prepareSocketPath } from './socket-dir.js';

export const HERDR_PROTOCOL = 20;
/** From accept to a complete request: not extended by bytes that trickle in. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
/** All connections' partial lines together. */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_CONNECTIONS = 4096;
/** A stream whose client reads slower than this many unsent bytes is dropped. */
export const DEFAULT_MAX_PENDING_WRITE_BYTES = 8 * 1024 * 1024;

/** A herdr report that passed validation and authentication (its seq is judged by the window's arbiter). */
export type Report<W> = Omit<ParsedReport, 'paneId'> & { window: W };

/** One agent hook event from `nerdr hook <agent>`, authenticated. */
export interface HookReport<W> {
  window: W;
  agent: string;
  event: Record<string, unknown> | null;
  dropped?: string;
  /** Event name from the hook's command line (`nerdr hook <agent> <event>`). */
  hint?: string;
}

export interface RequestContext {
  readonly id: string;
  readonly method: string;
  /** Aborted when the client hangs up, the stream ends or the server closes: stop waiting then. */
  readonly signal: AbortSignal;
  /**
   * Turns this request into a stream: the handler's result is sent as the first reply, then
   * the connection stays open and the returned handle pushes further lines until it or the
   * client closes. Lines sent before the result is written are queued behind it.
   */
  stream(): StreamHandle;
}

export interface StreamHandle {
  /** Writes one line (any JSON value; bigints exact). False once closed. */
  send(message: unknown): boolean;
  /** Writes `{"event": name, "data": data}` (herdr's pushed-event shape). */
  event(name: string, data: unknown): boolean;
  /** Closes the connection after what was sent is flushed. */
  end(): void;
  /** Bytes written but not yet taken by the client (a reader that falls behind). */
  pending(): number;
  /** Calls `fn` once everything written so far has been taken by the client. */
  drained(fn: () => void): void;
  readonly closed: boolean;
  /** Same as the request's signal. */
  readonly signal: AbortSignal;
}

export type Handler = (params: unknown, ctx: RequestContext) => unknown;

export interface SocketServerOptions<W> {
  path: string;
  /** Maps a secret (NERDR_TAB / HERDR_PANE_ID) to the window it belongs to; null when unknown. */
  authenticate(secret: string): W | null | undefined | Promise<W | null | undefined>;
  /** Fresh, authenticated herdr reports (stale ones are answered ok and not passed on). */
  onReport?(report: Report<W>): void | Promise<void>;
  /** Authenticated `nerdr.hook` events. */
  onHook?(hook: HookReport<W>): void | Promise<void>;
  /**
   * A connection that has not delivered a complete request this long after it was accepted is
   * answered `timeout` and closed, however many bytes it keeps sending. Default 10 s; 0: never.
   */
  requestTimeoutMs?: number;
  /** Longest request line in bytes (newline excluded). Default 1 MiB. */
  maxLineBytes?: number;
  /** What all partial request lines together may hold. Default 64 MiB. */
  maxBufferedBytes?: number;
  maxPendingWriteBytes?: number;
  /** Default 4096. */
  maxConnections?: number;
  /** Listen backlog (capped by the kernel's somaxconn). Default 4096. */
  backlog?: number;
  /** Reported by `ping`. */
  version?: string;
  /** herdr protocol number reported by `ping` (20). */
  protocol?: number;
  /** Diagnostics (never request contents). */
  log?(message: string): void;
  /** The request deadline's timer (tests inject a manual one). Default: setTimeout. */
  timers?: Timers;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface SocketServer {
  readonly path: string;
  /** Registers a method; returns a function that unregisters it. */
  handle(method: string, handler: Handler): () => void;
  /** Open connections right now. */
  connectionCount(): number;
  /** Bytes reserved for partial request lines right now, over all connections. */
  bufferedBytes(): number;
  /** Stops listening, ends every connection and stream, removes the socket file. */
  close(): Promise<void>;
}

const BUILTIN = new Set(['ping', 'nerdr.hook']);

type Phase = 'reading' | 'busy' | 'streaming' | 'closed';

export async function createSocketServer<W>(opts: SocketServerOptions<W>): Promise<SocketServer> {
  const requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const budget = new ByteBudget(opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES);
  const timers = opts.timers ?? realTimers;
  let overloadLogged = 0;
  const maxPending = opts.maxPendingWriteBytes ?? DEFAULT_MAX_PENDING_WRITE_BYTES;
  const log = opts.log ?? (() => {});
  const handlers = new Map<string, Handler>();
  const sockets = new Set<Socket>();
  const controllers = new Set<AbortController>();

  await prepareSocketPath(opts.path);

  const server: Server = createServer({ allowHalfOpen: true }, (sock) => onConnection(sock));
  server.maxConnections = opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS;

  function onConnection(sock: Socket): void {
    sockets.add(sock);
    let phase: Phase = 'reading';
    const reader = new LineReader(maxLineBytes, budget);
    const ac = new AbortController();
    controllers.add(ac);
    // The request's deadline runs from accept; bytes that trickle in do not move it.
    let deadline: unknown =
      requestTimeoutMs > 0
        ? timers.setTimeout(() => {
            deadline = undefined;
            if (phase !== 'reading') return;
            write({ id: '', error: { code: 'timeout', message: `no complete request within ${requestTimeoutMs} ms of connecting` } });
            finish();
          }, requestTimeoutMs)
        : undefined;
    const stopDeadline = (): void => {
      if (deadline !== undefined) timers.clearTimeout(deadline);
      deadline = undefined;
    };

    const write = (msg: unknown): boolean => {
      if (phase === 'closed' || sock.destroyed || !sock.writable) return false;
      sock.write(stringifyExact(msg) + '\n');
      if (sock.writableLength > maxPending) {
        log(`socket: dropping a client that does not read (${sock.writableLength} bytes pending)`);
        finish(true);
        return false;
      }
      return true;
    };
    const finish = (now = false): void => {
      if (phase === 'closed') return;
      phase = 'closed';
      stopDeadline();
      reader.release();
      ac.abort();
      controllers.delete(ac);
      if (now || sock.destroyed) sock.destroy();
      else sock.end(() => sock.destroy());
    };
    const replyError = (id: string, err: RpcError): void => {
      write({ id: err.anonymous ? '' : id, error: { code: err.code, message: err.message, ...(err.fix ? { fix: err.fix } : {}) } });
    };

    sock.on('error', () => finish(true));
    sock.on('close', () => {
      sockets.delete(sock);
      finish(true);
    });
    // The client shut its side. While its request is being handled that is a hang-up: stop any
    // wait (herdr abandons it too) but still try to answer a request that completes anyway.
    sock.on('end', () => {
      if (phase === 'busy') ac.abort();
      else finish();
    });

    sock.on('data', (chunk: Buffer) => {
      if (phase !== 'reading') return; // one request per connection: the rest is not read
      for (const ev of reader.push(chunk)) {
        if (ev.kind === 'too_long') {
          write({ id: '', error: { code: 'invalid_request', message: `invalid request: line longer than ${maxLineBytes} bytes` } });
          sock.pause();
          finish();
          return;
        }
        if (ev.kind === 'over_budget') {
          // one line in the log per second at most: a flood must not flood the log too
          const now = Date.now();
          if (now - overloadLogged >= 1000) {
            overloadLogged = now;
            log(`socket: refusing a partial request: ${budget.limit} bytes are held for partial lines (${sockets.size} connections)`);
          }
          write({ id: '', error: { code: 'overloaded', message: `server busy: partial requests already hold ${budget.limit} bytes; send the request again` } });
          sock.pause();
          finish();
          return;
        }
        if (ev.kind === 'invalid_utf8') {
          write({ id: '', error: { code: 'invalid_request', message: 'invalid request: line is not valid UTF-8' } });
          continue;
        }
        if (ev.text.trim() === '') continue;
        const req = parseRequest(ev.text);
        if (req instanceof RpcError) {
          replyError('', req);
          continue;
        }
        phase = 'busy';
        stopDeadline();
        reader.release();
        void dispatch(req, ev.text);
        return;
      }
    });

    async function dispatch(req: ParsedRequest, line: string): Promise<void> {
      let stream: StreamImpl | undefined;
      const ctx: RequestContext = {
        id: req.id,
        method: req.method,
        signal: ac.signal,
        stream: () =>
          (stream ??= new StreamImpl(ac.signal, write, () => finish(), {
            pending: () => sock.writableLength,
            drained: (fn) => (sock.writableLength === 0 ? queueMicrotask(fn) : void sock.once('drain', fn)),
          })),
      };
      let result: unknown;
      try {
        result = await route(req, line, ctx);
      } catch (e) {
        const err = asRpcError(e);
        // the reply's fix sends the user here: the log has the stack of what nobody expected
        if (!(e instanceof RpcError)) log(`socket: ${req.method} failed: ${err.code === 'internal_error' && e instanceof Error && e.stack ? e.stack : err.message}`);
        replyError(req.id, err);
        stream?.markClosed();
        finish();
        return;
      }
      if (phase === 'closed') return;
      write({ id: req.id, result: result ?? { type: 'ok' } });
      if (stream) {
        stream.start();
        if (!stream.closed && (phase as Phase) !== 'closed') {
          phase = 'streaming';
          return;
        }
      }
      finish();
    }
  }

  async function authenticate(secret: string, code: string): Promise<W> {
    const w = secret === '' ? null : await opts.authenticate(secret);
    if (w === null || w === undefined) {
      throw new RpcError(code, code === 'pane_not_found' ? 'pane not found: unknown secret' : 'unknown secret: NERDR_TAB does not name a window');
    }
    return w;
  }

  async function route(req: ParsedRequest, line: string, ctx: RequestContext): Promise<unknown> {
    const { method, params } = req;
    if (method === 'ping') {
      return {
        type: 'pong',
        version: opts.version ?? '0.0.0',
        protocol: opts.protocol ?? HERDR_PROTOCOL,
        capabilities: { live_handoff: false, detached_server_daemon: true },
      };
    }
    if (isHerdrReportMethod(method)) {
      const parsed = parseHerdrReport(method, params, line);
      const window = await authenticate(parsed.paneId, 'pane_not_found');
      // The socket checks shape and secret only. Whether a report is fresh (its seq), and what it
      // may change, is the window's own state (state/arbiter.ts): it resets the counters when
      // the agent restarts, which a second book here never saw.
      const { paneId: _secret, ...rest } = parsed;
      await opts.onReport?.({ ...rest, window });
      return { type: 'ok' };
    }
    if (method === 'nerdr.hook') {
      await opts.onHook?.(await authenticateHook(params, opts.authenticate));
      return { type: 'ok' };
    }
    const handler = handlers.get(method);
    if (!handler) throw invalidRequest(`unknown method \`${method}\``);
    // nerdr's own methods carry the user's literal text (a multi-line --cmd, a message with
    // escape sequences): only agents' reports above are cleaned. Handlers clean what they show.
    return handler(params, ctx);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue: a burst of hooks must not see EAGAIN (Node's default is 511).
    server.listen({ path: opts.path, backlog: opts.backlog ?? 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (e) => log(`socket: ${e.message}`));
  await chmod(opts.path, 0o600);
  const ino = (await lstat(opts.path)).ino;

  let closing: Promise<void> | undefined;
  return {
    path: opts.path,
    handle(method, handler) {
      if (BUILTIN.has(method) || isHerdrReportMethod(method)) throw new Error(`socket method ${method} is built in`);
      if (handlers.has(method)) throw new Error(`socket method ${method} is already handled`);
      handlers.set(method, handler);
      return () => {
        if (handlers.get(method) === handler) handlers.delete(method);
      };
    },
    connectionCount: () => sockets.size,
    bufferedBytes: () => budget.used,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((r) => server.close(() => r()));
        for (const ac of controllers) ac.abort();
        for (const s of sockets) s.destroy();
        await closed;
        try {
          // Only remove the file if it is still ours (a successor may have bound the path).
          if ((await lstat(opts.path)).ino === ino) await unlink(opts.path);
        } catch {
          /* already gone */
        }
      })();
      return closing;
    },
  };
}

interface ParsedRequest {
  id: string;
  method: string;
  params: Record<string, unknown>;
}

/** Deepest nesting of arrays and objects a request may have (serde_json, herdr's parser, stops at 128). */
export const MAX_JSON_DEPTH = 512;

/**
 * Whether the JSON text nests deeper than `max`, counted outside strings. Checked before
 * JSON.parse: a 1 MiB line of `[[[[…` or `{"a":{"a":…` would otherwise build (or start to build)
 * hundreds of thousands of objects, and every later step that walks the params recurses.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

function parseRequest(text: string): ParsedRequest | RpcError {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return invalidRequest(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return invalidRequest(e instanceof Error ? e.message : 'invalid JSON');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return invalidRequest('expected a JSON object');
  const o = v as Record<string, unknown>;
  if (typeof o.id !== 'string') return invalidRequest('missing or non-string field `id`');
  if (typeof o.method !== 'string') return invalidRequest('missing or non-string field `method`');
  const p = o.params;
  if (p === null || typeof p !== 'object' || Array.isArray(p)) return invalidRequest('missing field `params` (send {} when a method takes none)');
  return { id: o.id, method: o.method, params: p as Record<string, unknown> };
}

class StreamImpl implements StreamHandle {
  private queue: unknown[] = [];
  private started = false;
  private done = false;

  constructor(
    readonly signal: AbortSignal,
    private readonly write: (msg: unknown) => boolean,
    private readonly finish: () => void,
    private readonly socket: { pending(): number; drained(fn: () => void): void },
  ) {
    signal.addEventListener('abort', () => (this.done = true), { once: true });
  }

  pending(): number {
    return this.socket.pending();
  }

  drained(fn: () => void): void {
    if (!this.done) this.socket.drained(() => void (this.done ? undefined : fn()));
  }

  get closed(): boolean {
    return this.done;
  }

  send(message: unknown): boolean {
    if (this.done) return false;
    if (!this.started) {
      this.queue.push(message);
      return true;
    }
    return this.write(message);
  }

  event(name: string, data: unknown): boolean {
    return this.send({ event: name, data });
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    // Before the first reply is out, dispatch() closes the connection after writing it.
    if (this.started) this.finish();
  }

  /** Called by the server once the result line is written: flushes what was queued. */
  start(): void {
    this.started = true;
    for (const m of this.queue.splice(0)) if (!this.write(m)) return;
  }

  markClosed(): void {
    this.done = true;
  }
}
