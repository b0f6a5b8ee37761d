// Shared parts of the fake model servers: a 127.0.0.1-only HTTP server that logs every
// request, and the keyword script every fake model follows.
//
// Keywords in the user's latest prompt pick the answer:
//   RUN_BASH        a shell tool call that needs approval (writes a file, so it is not auto-allowed)
//   ASK_QUESTION    a question to the user (Claude: AskUserQuestion; opencode: question)
//   SUBAGENT        a subagent (Claude: Agent/Task; opencode: task); its own prompt holds SUBAGENT_CHILD
//   SLOW_START      a long pause before the first token (an interrupt lands before any output)
//   SLOW            a slow streaming answer (so "working" can be observed and interrupted)
//   USAGE_LIMIT     the plan is exhausted: from this request until the reset (`Timing.limitResetMs`
//                   from now, on a whole minute, as the agents show minutes) every request gets
//                   the real service's answer for it (Anthropic: 429 with
//                   `anthropic-ratelimit-unified-status: rejected`; OpenAI: 429 `usage_limit_reached`)
//   anything else   a short plain-text answer
// A request whose last input is a tool result gets a closing "Done." answer.

import { appendFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Script = 'limit' | 'slow-start' | 'bash' | 'question' | 'subagent' | 'subagent-child' | 'subagent-wait' | 'slow' | 'text' | 'after-tool' | 'title';

export interface LoggedRequest {
  at: number;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** What the fake model chose to answer. */
  script?: Script;
  /** Set when the response was fully sent (or the client went away). */
  endedAt?: number;
  aborted?: boolean;
  /** SSE events sent so far (how far a stream has got). */
  events?: number;
}

export interface Timing {
  /** Pause before the first token of every answer (keeps "working" on screen). */
  firstTokenMs: number;
  /** SLOW: number of chunks and the pause between them. */
  slowChunks: number;
  slowChunkMs: number;
  /** SLOW_START: the pause before the first token. */
  slowStartMs: number;
  /** How long the subagent's own answer takes. */
  childMs: number;
  /** USAGE_LIMIT: the plan resets at least this long after the request, on the next whole minute. */
  limitResetMs: number;
}

export const DEFAULT_TIMING: Timing = { slowStartMs: 10_000, firstTokenMs: 2500, slowChunks: 30, slowChunkMs: 400, childMs: 8000, limitResetMs: 2 * 60 * 60 * 1000 };

export const BASH_COMMAND = 'touch harness-was-here.txt && echo hello-from-harness';
export const BASH_DESCRIPTION = 'Create a marker file and print a greeting';
export const QUESTION = {
  question: 'Which colour should the harness use?',
  header: 'Colour',
  options: [
    { label: 'Red', description: 'A warm colour' },
    { label: 'Blue', description: 'A cool colour' },
  ],
};
export const SUBAGENT_DESCRIPTION = 'Harness subagent';
export const SUBAGENT_PROMPT = 'SUBAGENT_CHILD: say hello from the harness subagent';
export const SLOW_WORDS = 'The harness streams this answer slowly so that the working state can be seen. ';

/** The script for a prompt text (order matters: SUBAGENT_CHILD before SUBAGENT). */
export function scriptFor(text: string): Script {
  if (text.includes('SUBAGENT_CHILD')) return 'subagent-child';
  if (text.includes('USAGE_LIMIT')) return 'limit';
  if (text.includes('RUN_BASH')) return 'bash';
  if (text.includes('ASK_QUESTION')) return 'question';
  if (text.includes('SUBAGENT')) return 'subagent';
  if (text.includes('SLOW_START')) return 'slow-start';
  if (text.includes('SLOW')) return 'slow';
  return 'text';
}

/**
 * The part of a user message the human typed: the agent's own additions are dropped. Agents wrap
 * what they add in tags (`<system-reminder>…</system-reminder>`, `<environment_context>`, Copilot's
 * `<current_datetime>…</current_datetime>` before the prompt, …) or start it with "Caveat:".
 */
export function humanText(text: string): string {
  const t = text.replace(/<([A-Za-z][\w-]*)[^>]*>[\s\S]*?<\/\1>/g, '').trim();
  return t.startsWith('<') || t.startsWith('Caveat:') ? '' : t;
}

/** A text the agent added to the user's turn by itself (environment, reminders, instructions). */
export function isInjected(text: string): boolean {
  return humanText(text) === '';
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = (): void => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export interface FakeServer {
  url: string;
  port: number;
  requests: LoggedRequest[];
  timing: Timing;
  /** USAGE_LIMIT: until when (epoch ms) the plan is exhausted; null while it is not. */
  exhaustedUntil: number | null;
  /** USAGE_LIMIT exhausted the plan once already: the keyword does not again (an agent that resends the turn's prompt with the next one). */
  limitSpent: boolean;
  /** Where each request is appended as one JSON line once answered (may be set later). */
  logFile?: string | undefined;
  close(): Promise<void>;
}

export type Handler = (req: LoggedRequest, res: SseResponse) => Promise<void>;

/** An SSE writer that stops quietly when the client hangs up (an interrupted turn). */
export class SseResponse {
  readonly signal: AbortSignal;
  private readonly ac = new AbortController();
  constructor(
    readonly raw: http.ServerResponse,
    private readonly logged?: LoggedRequest,
  ) {
    this.signal = this.ac.signal;
    raw.on('close', () => {
      if (!raw.writableFinished) this.ac.abort();
    });
  }
  get closed(): boolean {
    return this.ac.signal.aborted || this.raw.destroyed;
  }
  start(): void {
    this.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    this.raw.flushHeaders();
  }
  event(name: string | null, data: unknown): void {
    if (this.closed) return;
    const payload = typeof data === 'string' ? data : JSON.stringify(data);
    if (this.logged) this.logged.events = (this.logged.events ?? 0) + 1;
    this.raw.write(`${name ? `event: ${name}\n` : ''}data: ${payload}\n\n`);
  }
  json(status: number, body: unknown): void {
    if (this.closed) return;
    this.raw.writeHead(status, { 'content-type': 'application/json' });
    this.raw.end(JSON.stringify(body));
  }
  end(): void {
    if (!this.raw.writableEnded) this.raw.end();
  }
  sleep(ms: number): Promise<void> {
    return sleep(ms, this.signal);
  }
}

/** Starts a server on 127.0.0.1 (never any other address); `logFile` gets one JSON line per request. */
export async function startServer(handler: Handler, opts: { logFile?: string; timing?: Partial<Timing> } = {}): Promise<FakeServer> {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        /* not JSON: keep the text */
      }
      const logged: LoggedRequest = { at: Date.now(), method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      fake.requests.push(logged);
      const sse = new SseResponse(res, logged);
      handler(logged, sse)
        .catch((err: Error) => {
          if (!res.headersSent) sse.json(500, { error: { type: 'fake_server_error', message: err.message } });
        })
        .finally(() => {
          logged.endedAt = Date.now();
          logged.aborted = sse.signal.aborted;
          sse.end();
          if (fake.logFile) appendFileSync(fake.logFile, JSON.stringify(logged) + '\n');
        });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const fake: FakeServer = {
    url: '',
    port: 0,
    requests: [],
    timing: { ...DEFAULT_TIMING, ...opts.timing },
    exhaustedUntil: null,
    limitSpent: false,
    logFile: opts.logFile,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  fake.port = (server.address() as AddressInfo).port;
  fake.url = `http://127.0.0.1:${fake.port}`;
  return fake;
}

/** Streams a text as the given pieces, `gapMs` apart (each API wraps the pieces its own way). */
export type Say = (text: string, pieces?: string[], gapMs?: number) => Promise<void>;

/**
 * The answers that are only text, the same for every API: a subagent's own answer, a slow start, a
 * slow stream, the closing "Done." after a tool, and the short default answer.
 */
export async function sayText(script: Script, res: SseResponse, timing: Timing, say: Say): Promise<void> {
  switch (script) {
    case 'subagent-child': {
      const pieces = chunks('Hello from the harness subagent. '.repeat(4), 8);
      await res.sleep(1000);
      await say(pieces.join(''), pieces, Math.max(10, Math.floor(timing.childMs / pieces.length)));
      return;
    }
    case 'slow-start':
      await res.sleep(timing.slowStartMs);
      await say('Finally, the first words.');
      return;
    case 'slow': {
      await res.sleep(1000);
      const t = SLOW_WORDS.repeat(3);
      await say(t, chunks(t, Math.ceil(t.length / timing.slowChunks)), timing.slowChunkMs);
      return;
    }
    case 'after-tool':
      await res.sleep(timing.firstTokenMs);
      await say('Done. The harness step finished.');
      return;
    default:
      await res.sleep(timing.firstTokenMs);
      await say('Hello from the fake model.');
  }
}

/** Splits a text into small chunks for streaming. */
export function chunks(text: string, size = 12): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The first request with this script that started at `since` or later (optionally one still being answered). */
export function findRequest(server: FakeServer, script: Script, since: number, running = false): LoggedRequest | undefined {
  return server.requests.find((r) => r.script === script && r.at >= since && (!running || r.endedAt === undefined));
}

/**
 * USAGE_LIMIT: whether this request meets an exhausted plan, and until when (epoch ms). The
 * keyword exhausts it once per server (reset `limitResetMs` on, rounded up to a whole minute:
 * the agents show the reset to the minute); every request before the reset is refused, the first
 * after it is answered as usual, even one that still carries the keyword (Claude Code sends the
 * refused prompt again with the next one, in the same user message).
 */
export function exhausted(server: FakeServer, script: Script, now = Date.now()): number | null {
  if (server.exhaustedUntil !== null && now >= server.exhaustedUntil) server.exhaustedUntil = null;
  if (script === 'limit' && server.exhaustedUntil === null && !server.limitSpent) {
    server.exhaustedUntil = Math.ceil((now + server.timing.limitResetMs) / 60_000) * 60_000;
    server.limitSpent = true;
  }
  return server.exhaustedUntil;
}
