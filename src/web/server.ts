// `nerdr web`'s HTTP server (Node's own http): one page, its event stream, three actions.
//
//   GET  /?token=T   checks the token, sets the session cookie, redirects to / (the token leaves the address bar)
//   GET  /           the page (a fresh nonce and CSRF token each time)
//   GET  /events     server-sent events: `inbox` {rows} on every change, `away` {message, fix} while the supervisor does not answer
//   POST /answer {target, prompt, choice, text?}   POST /snooze {id, forMs}   POST /cancel {id}
//
// Every request passes the guards of security.ts in this order: Host (403), the session cookie or
// the token (401); a POST also the same Origin and the page's CSRF token (403), then the session's
// token bucket (429). No answer carries a CORS header.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { InboxRow } from '../protocol/inbox.js';
import { page } from './page.js';
import { allowedHosts, baseHeaders, checkHost, checkPost, contentSecurityPolicy, cookieName, cookieValue, hostPort, randomToken, sameSecret, sessionCookie, TokenBucket, type Refusal } from './security.js';
import { SourceError, UNREACHABLE, type InboxSource } from './source.js';

export interface WebServerOptions {
  source: InboxSource;
  /** The address to listen on (default 127.0.0.1). */
  listen?: string;
  /** 0: a free port. */
  port?: number;
  /** The secret of the printed URL; default a fresh one (256 bits). */
  token?: string;
  /** POSTs a session may make at once, and per second after. */
  burst?: number;
  perSecond?: number;
  now?: () => number;
  /** Where failures the page cannot show go (the supervisor's errors are shown in the page). */
  log?: (line: string) => void;
}

export interface WebServer {
  /** The URL to open, token included. */
  url: string;
  port: number;
  listen: string;
  close(): Promise<void>;
}

/** Sessions and page tokens kept at most: the oldest go first (a phone and a laptop need a few). */
const MAX_SESSIONS = 64;
const MAX_CSRF = 256;
/** Event streams open at once; more are refused (503) rather than holding sockets for ever. */
const MAX_STREAMS = 32;
const MAX_BODY = 16 * 1024;
/** A comment line on every stream this often keeps an ssh tunnel or a phone's connection from going idle. */
const KEEPALIVE_MS = 20_000;

const answerBody = z.object({ target: z.string().min(1).max(64), prompt: z.string().min(1).max(256), choice: z.union([z.enum(['approve', 'always', 'deny']), z.number().int().min(1).max(99)]), text: z.string().max(8192).optional(), host: z.string().min(1).max(64).optional() }).strict();
const snoozeBody = z.object({ id: z.string().min(1).max(256), forMs: z.number().int().min(1000).max(7 * 24 * 3600_000), host: z.string().min(1).max(64).optional() }).strict();
const cancelBody = z.object({ id: z.string().min(1).max(256), host: z.string().min(1).max(64).optional() }).strict();

/** A set that forgets its oldest member past `max`. */
class Recent {
  private readonly items = new Set<string>();
  constructor(private readonly max: number) {}
  add(v: string): void {
    this.items.add(v);
    if (this.items.size > this.max) this.items.delete(this.items.values().next().value!);
  }
  has(v: string): boolean {
    for (const x of this.items) if (sameSecret(v, x)) return true;
    return false;
  }
}

export function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const listen = opts.listen ?? '127.0.0.1';
  const token = opts.token ?? randomToken();
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => undefined);
  const source = opts.source;
  const sessions = new Recent(MAX_SESSIONS);
  const csrf = new Recent(MAX_CSRF);
  const buckets = new Map<string, TokenBucket>();
  const streams = new Set<http.ServerResponse>();
  let hosts: string[] = [];
  let port = 0;

  // ---- the inbox, fetched again on every change (coalesced: one fetch at a time, one more after it if something changed meanwhile)
  let latest: { event: 'inbox'; data: { rows: InboxRow[] } } | { event: 'away'; data: { message: string; fix?: string } } | null = null;
  let fetching = false;
  let again = false;
  const refresh = async (): Promise<void> => {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    do {
      again = false;
      try {
        latest = { event: 'inbox', data: { rows: await source.inbox() } };
      } catch (err) {
        const e = err instanceof SourceError ? err : null;
        if (!e) log(`nerdr web: the inbox failed: ${err instanceof Error ? err.message : String(err)}`);
        latest = { event: 'away', data: { message: e?.message ?? 'the inbox could not be read', ...(e?.fix ? { fix: e.fix } : {}) } };
      }
      for (const s of streams) send(s, latest);
    } while (again);
    fetching = false;
  };
  const send = (res: http.ServerResponse, m: NonNullable<typeof latest>): void => {
    res.write(`event: ${m.event}\ndata: ${JSON.stringify(m.data)}\n\n`);
  };
  const keepalive = setInterval(() => {
    for (const s of streams) s.write(': keepalive\n\n');
  }, KEEPALIVE_MS);
  keepalive.unref();

  const refuse = (res: http.ServerResponse, r: Refusal | { status: number; why: string }): void => {
    res.writeHead(r.status, { ...baseHeaders(), 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(`nerdr web: ${r.why}\n`);
  };
  const json = (res: http.ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { ...baseHeaders(), 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const hostRefused = checkHost(req.headers, hosts);
    if (hostRefused) return refuse(res, hostRefused);
    const url = new URL(req.url ?? '/', `http://${hosts[0]}`);
    const cookie = cookieValue(req.headers, cookieName(port));
    const given = url.searchParams.get('token');
    if (given !== null) {
      if (!sameSecret(given, token)) return refuse(res, { status: 401, why: 'wrong token: open the URL nerdr web printed' });
      if (req.method !== 'GET' || url.pathname !== '/') return refuse(res, { status: 404, why: 'not found' });
      const session = randomToken();
      sessions.add(session);
      res.writeHead(303, { ...baseHeaders(), 'Set-Cookie': sessionCookie(port, session), Location: '/' });
      return void res.end();
    }
    if (cookie === undefined || !sessions.has(cookie)) return refuse(res, { status: 401, why: 'open the URL nerdr web printed (with its ?token=…)' });

    if (req.method === 'GET' && url.pathname === '/') {
      const nonce = randomBytes(18).toString('base64');
      const pageToken = randomToken();
      csrf.add(pageToken);
      res.writeHead(200, { ...baseHeaders(), 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': contentSecurityPolicy(nonce) });
      return void res.end(page(nonce, pageToken));
    }
    if (req.method === 'GET' && url.pathname === '/events') {
      if (streams.size >= MAX_STREAMS) return refuse(res, { status: 503, why: 'too many pages open at once: close one' });
      res.writeHead(200, { ...baseHeaders(), 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
      res.write('retry: 2000\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      if (latest) send(res, latest);
      else void refresh();
      return;
    }
    if (req.method === 'POST' && ['/answer', '/snooze', '/cancel'].includes(url.pathname)) {
      const postRefused = checkPost(req.headers, (t) => csrf.has(t));
      if (postRefused) return refuse(res, postRefused);
      let bucket = buckets.get(cookie);
      if (!bucket) buckets.set(cookie, (bucket = new TokenBucket(opts.burst ?? 10, opts.perSecond ?? 2, now)));
      if (!bucket.take()) return refuse(res, { status: 429, why: 'too many answers at once: wait a moment' });
      const body = await readJson(req);
      if (body === tooLarge) return refuse(res, { status: 413, why: 'the request is too large' });
      try {
        if (url.pathname === '/answer') {
          const p = answerBody.safeParse(body);
          if (!p.success) return json(res, 400, { error: { code: 'invalid_params', message: 'an answer names target, prompt and choice' } });
          return json(res, 200, { result: await source.answer(p.data) });
        }
        if (url.pathname === '/snooze') {
          const p = snoozeBody.safeParse(body);
          if (!p.success) return json(res, 400, { error: { code: 'invalid_params', message: 'a snooze names id and forMs' } });
          return json(res, 200, { result: await source.snooze(p.data) });
        }
        const p = cancelBody.safeParse(body);
        if (!p.success) return json(res, 400, { error: { code: 'invalid_params', message: 'a cancel names id' } });
        return json(res, 200, { result: await source.cancel(p.data) });
      } catch (err) {
        if (!(err instanceof SourceError)) throw err;
        // the supervisor's refusal, as it said it; for a changed prompt, the window's row as it is now
        const target = url.pathname === '/answer' ? (body as { target: string; host?: string }) : null;
        const current = err.code === 'prompt_changed' && target ? ((await source.inbox().catch(() => [])).find((r) => r.window === target.target && (r.host ?? undefined) === target.host && r.kind === 'blocked') ?? null) : undefined;
        return json(res, UNREACHABLE.has(err.code) ? 502 : 409, { error: { code: err.code, message: err.message, ...(err.fix ? { fix: err.fix } : {}), ...(err.data !== undefined ? { data: err.data } : {}), ...(current !== undefined ? { current } : {}) } });
      }
    }
    if (req.method !== 'GET' && req.method !== 'POST') return refuse(res, { status: 405, why: 'only GET and POST' });
    return refuse(res, { status: 404, why: 'not found' });
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`nerdr web: ${req.method} ${req.url?.split('?')[0]}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (!res.headersSent) refuse(res, { status: 500, why: 'internal error (see the terminal running nerdr web)' });
      else res.end();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: listen, port: opts.port ?? 0, exclusive: true }, () => {
      server.off('error', reject);
      port = (server.address() as AddressInfo).port;
      hosts = allowedHosts(listen, port);
      const stop = source.follow(() => void refresh());
      resolve({
        url: `http://${hostPort(listen, port)}/?token=${token}`,
        port,
        listen,
        close: () =>
          new Promise<void>((done) => {
            stop();
            clearInterval(keepalive);
            for (const s of streams) s.end();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

const tooLarge = Symbol('too large');

/** The body as JSON (undefined when it is not), or `tooLarge` past MAX_BODY (read to its end, kept no further, so the answer can still be sent). */
function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size <= MAX_BODY) parts.push(b);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return resolve(tooLarge);
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    });
    req.on('error', reject);
  });
}
