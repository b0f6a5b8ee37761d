// The web server on a real socket (127.0.0.1, a free port) over a fake inbox source: every guard
// answers as docs/web.md says, the stream carries each change, and the supervisor's refusals reach
// the page as it said them.

import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebServer, type WebServer } from '../../../src/web/server.js';
import { blockedRow, fakeSource, type FakeSource } from './fake-source.js';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let server: WebServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuv';

async function start(source: FakeSource = fakeSource(), extra: { burst?: number; now?: () => number } = {}) {
  server = await startWebServer({ source, token: TOKEN, port: 0, ...extra });
  const port = server.port;
  const host = `127.0.0.1:${port}`;
  const get = (path: string, headers: Record<string, string> = {}) => send(port, 'GET', path, { host, ...headers });
  const login = await get(`/?token=${TOKEN}`);
  const cookie = login.headers['set-cookie']![0]!.split(';')[0]!;
  const pageHtml = (await get('/', { cookie })).body;
  const csrf = /name="nerdr-csrf" content="([^"]+)"/.exec(pageHtml)![1]!;
  const good = { host, cookie, origin: `http://${host}`, 'x-nerdr-csrf': csrf, 'content-type': 'application/json' };
  const post = (path: string, body: unknown, headers: Record<string, string | undefined> = {}) => {
    const h = Object.fromEntries(Object.entries({ ...good, ...headers }).filter(([, v]) => v !== undefined)) as Record<string, string>;
    return send(port, 'POST', path, h, JSON.stringify(body));
  };
  return { port, host, get, post, cookie, csrf, login, source };
}

describe('nerdr web: the token', () => {
  it('the printed URL is http://127.0.0.1:PORT/?token=…', async () => {
    const s = await start();
    expect(server!.url).toBe(`http://127.0.0.1:${s.port}/?token=${TOKEN}`);
    expect(server!.listen).toBe('127.0.0.1');
  });

  it('the first load with ?token= sets an HttpOnly, SameSite=Strict session cookie and leaves the token out of the address', async () => {
    const s = await start();
    expect(s.login.status).toBe(303);
    expect(s.login.headers.location).toBe('/');
    const set = s.login.headers['set-cookie']![0]!;
    expect(set).toMatch(new RegExp(`^nerdr_web_${s.port}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/$`));
    // the cookie is a session of its own, not the printed token
    expect(set).not.toContain(TOKEN);
  });

  it('401 without the token or its cookie, on every path; 401 with a wrong token or an unknown session', async () => {
    const s = await start();
    for (const path of ['/', '/events', '/nothing']) expect((await s.get(path)).status, path).toBe(401);
    expect((await s.get('/?token=wrong')).status).toBe(401);
    expect((await s.get('/', { cookie: `nerdr_web_${s.port}=forged` })).status).toBe(401);
    expect((await s.post('/answer', { target: '@3', prompt: 'p1', choice: 'approve' }, { cookie: undefined })).status).toBe(401);
    expect(s.source.calls).toEqual([]);
  });

  it('with the cookie: the page, 200, with its policy headers and no CORS header', async () => {
    const s = await start();
    const r = await s.get('/', { cookie: s.cookie });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    const nonce = /script-src 'nonce-([^']+)'/.exec(r.headers['content-security-policy'] as string)![1]!;
    expect(r.body).toContain(`<script nonce="${nonce}">`);
    expect(Object.keys(r.headers).filter((k) => k.startsWith('access-control-'))).toEqual([]);
    // a preflight gets no CORS either
    const pre = await send(s.port, 'OPTIONS', '/answer', { host: s.host, cookie: s.cookie, origin: 'http://evil.example', 'access-control-request-method': 'POST' });
    expect(pre.status).toBe(405);
    expect(Object.keys(pre.headers).filter((k) => k.startsWith('access-control-'))).toEqual([]);
  });

  it('each page load has a nonce and a CSRF token of its own', async () => {
    const s = await start();
    const a = await s.get('/', { cookie: s.cookie });
    const b = await s.get('/', { cookie: s.cookie });
    expect(a.headers['content-security-policy']).not.toBe(b.headers['content-security-policy']);
    expect(/nerdr-csrf" content="([^"]+)"/.exec(a.body)![1]).not.toBe(/nerdr-csrf" content="([^"]+)"/.exec(b.body)![1]);
  });
});

describe('nerdr web: Host, Origin, CSRF, rate', () => {
  it('403 for a foreign Host even with the right token and cookie (DNS rebinding)', async () => {
    const s = await start();
    expect((await s.get(`/?token=${TOKEN}`, { host: `evil.example:${s.port}` })).status).toBe(403);
    expect((await s.get('/', { host: `evil.example:${s.port}`, cookie: s.cookie })).status).toBe(403);
    expect((await s.get('/', { host: `localhost:${s.port}`, cookie: s.cookie })).status).toBe(200);
  });

  it('403 for a POST with a foreign Origin, without Origin, without or with a stale CSRF token; nothing reaches the supervisor', async () => {
    const s = await start();
    const body = { target: '@3', prompt: 'p1', choice: 'approve' };
    expect((await s.post('/answer', body, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await s.post('/answer', body, { origin: undefined })).status).toBe(403);
    expect((await s.post('/answer', body, { 'x-nerdr-csrf': undefined })).status).toBe(403);
    expect((await s.post('/answer', body, { 'x-nerdr-csrf': 'made-up' })).status).toBe(403);
    expect(s.source.calls).toEqual([]);
  });

  it('429 once a session has used its burst; the bucket refills with time', async () => {
    let t = 0;
    const s = await start(fakeSource(), { burst: 2, now: () => t });
    const snooze = () => s.post('/snooze', { id: 'p1', forMs: 60_000 });
    expect((await snooze()).status).toBe(200);
    expect((await snooze()).status).toBe(200);
    expect((await snooze()).status).toBe(429);
    t += 1000;
    expect((await snooze()).status).toBe(200);
    expect(s.source.calls).toHaveLength(3);
  });

  it('400 for a body that is not an answer; 413 for one too large', async () => {
    const s = await start();
    expect((await s.post('/answer', { target: '@3', prompt: 'p1', choice: 'rm -rf' })).status).toBe(400);
    expect((await s.post('/answer', { target: '@3', prompt: 'p1', choice: 1, extra: 1 })).status).toBe(400);
    expect((await s.post('/answer', { target: '@3', prompt: 'p1', choice: 1, text: 'x'.repeat(20_000) })).status).toBe(413);
    expect(s.source.calls).toEqual([]);
  });
});

describe('nerdr web: answers', () => {
  it('an answer from the page reaches the supervisor as nerdr.answer takes it', async () => {
    const s = await start();
    const r = await s.post('/answer', { target: '@3', prompt: 'p1', choice: 'approve' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).result.keys).toEqual(['1']);
    expect(s.source.calls).toEqual([['answer', { target: '@3', prompt: 'p1', choice: 'approve' }]]);
  });

  it("a changed prompt is refused with the supervisor's words, and the window's new prompt", async () => {
    const source = fakeSource([blockedRow({ id: 'p2', summary: 'Run the migration?' })]);
    const s = await start(source);
    const r = await s.post('/answer', { target: '@3', prompt: 'p1', choice: 'approve' });
    expect(r.status).toBe(409);
    const e = JSON.parse(r.body).error;
    expect(e.code).toBe('prompt_changed');
    expect(e.message).toContain('the prompt changed');
    expect(e.data).toEqual({ prompt: 'p2' });
    expect(e.current.id).toBe('p2');
    expect(e.current.summary).toBe('Run the migration?');
  });

  it('snooze and cancel are passed on', async () => {
    const s = await start();
    expect((await s.post('/snooze', { id: 'p1', forMs: 900_000 })).status).toBe(200);
    expect((await s.post('/cancel', { id: 'm7' })).status).toBe(200);
    expect(s.source.calls).toEqual([['snooze', { id: 'p1', forMs: 900_000 }], ['cancel', { id: 'm7' }]]);
  });
});

/** Reads a server-sent event stream event by event. */
function stream(port: number, headers: Record<string, string>) {
  const events: { event: string; data: unknown }[] = [];
  let wake: (() => void) | null = null;
  let buf = '';
  const req = http.request({ host: '127.0.0.1', port, path: '/events', headers, setHost: false }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (s: string) => {
      buf += s;
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
      }
      wake?.();
    });
  });
  req.end();
  const next = async (n: number) => {
    while (events.length < n) await new Promise<void>((r) => (wake = r));
    return events[n - 1]!;
  };
  return { next, close: () => req.destroy() };
}

describe('nerdr web: the event stream', () => {
  it('sends the inbox at once, then again on each change', async () => {
    const s = await start();
    const es = stream(s.port, { host: s.host, cookie: s.cookie });
    expect(await es.next(1)).toEqual({ event: 'inbox', data: { rows: s.source.rows } });
    s.source.rows = [];
    s.source.change();
    expect(await es.next(2)).toEqual({ event: 'inbox', data: { rows: [] } });
    es.close();
  });

  it('says the supervisor is away while it does not answer, and comes back', async () => {
    const s = await start();
    const es = stream(s.port, { host: s.host, cookie: s.cookie });
    await es.next(1);
    s.source.away = true;
    s.source.change();
    expect(await es.next(2)).toMatchObject({ event: 'away', data: { message: 'nerdr supervisor is not running' } });
    s.source.away = false;
    s.source.change();
    expect((await es.next(3)).event).toBe('inbox');
    es.close();
  });

  it('close() stops following the supervisor', async () => {
    const source = fakeSource();
    await start(source);
    expect(source.following()).toBe(true);
    await server!.close();
    server = null;
    expect(source.following()).toBe(false);
  });
});
