// `nerdr web` in a real browser: Debian's chromium driven by playwright-core.
//
// 1. The page over an inbox source of the test's own (no tmux): a hostile dialog shows as text,
//    an answer is sent with the page's CSRF token, a changed prompt is shown with the new one.
//    NERDR_WEB_SCREENSHOT=docs/web-phone.png also writes the page at phone width there.
// 2. The real thing: a demo agent's permission dialog, `nerdr web --json`, the page approves it
//    and the agent goes on; a stale button says "the prompt changed"; 401 without the token,
//    403 for a foreign Host or Origin.
//
// Without chromium the browser parts are skipped, saying so (CI installs it: .ci/run).

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { NERDR_BIN, REPO_ROOT, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { serverFiles } from '../../src/paths.js';
import { request } from '../../src/supervisor/socket/index.js';
import type { InboxRow } from '../../src/protocol/inbox.js';
import { blockedRow, fakeSource } from '../unit/web/fake-source.js';

const CHROMIUM = [process.env.NERDR_TEST_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p): p is string => !!p && existsSync(p));
if (!CHROMIUM) console.warn('test/live/web.test.ts: no chromium found (apt-get install chromium, or NERDR_TEST_CHROMIUM=PATH): the browser tests are skipped');
/** The supervisor's inbox methods are another part of issue 27; until they are there, part 2 waits for them. */

async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** A GET or POST with headers fetch() cannot set (Host), on 127.0.0.1. */
function raw(port: number, method: string, pathName: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: pathName, headers, setHost: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.skipIf(!CHROMIUM)('nerdr web: the page in chromium, over an inbox of the test', () => {
  let browser: Browser;
  let server: WebServer;
  const source = fakeSource([
    blockedRow({ id: 'p1', name: 'api <b>bold</b>', dialog: { text: 'Run this?\n<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>', options: [{ n: 1, label: 'Yes', kind: 'approve' }, { n: 2, label: '<i>No</i>', kind: 'deny' }], selected: 0, layout: 'list' } }),
  ]);
  beforeAll(async () => {
    browser = await launch();
    server = await startWebServer({ source });
  });
  afterAll(async () => {
    await server?.close();
    await browser?.close();
  });

  const open = async (width = 390, height = 844): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width, height } });
    await page.goto(server.url);
    await page.locator('section.row').first().waitFor();
    return page;
  };

  it("an agent's text is shown as text, never run: no element, no script from a dialog", async () => {
    const page = await open();
    expect(await page.locator('pre.dialog').textContent()).toContain('<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>');
    expect(await page.locator('.name').textContent()).toBe('api <b>bold</b>');
    expect(await page.locator('button.deny').textContent()).toBe('2. <i>No</i>');
    expect(await page.locator('main img, main script, main b, main i').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    // the address bar lost the token: the cookie carries the session
    expect(page.url()).toBe(server.url.replace(/\?token=.*$/, ''));
    await page.close();
  });

  it('a click answers with the prompt shown; once the screen moved on, the page says the prompt changed and shows the new one', async () => {
    const page = await open();
    await page.locator('button[data-choice="approve"]').click();
    await waitFor(() => source.calls.length === 1, { what: 'the answer to reach the source' });
    expect(source.calls[0]).toEqual(['answer', { target: '@3', prompt: 'p1', choice: 'approve' }]);
    // the agent shows another dialog, and the page has not been told yet: its button is stale
    source.rows = [blockedRow({ id: 'p2', summary: 'Delete the database?' })];
    await page.locator('button[data-choice="approve"]').click();
    const notice = page.locator('.notice').first();
    await notice.waitFor();
    expect(await notice.textContent()).toContain('the prompt changed');
    expect(await notice.textContent()).toContain('now: Delete the database?');
    // then the change arrives and the row shows the new dialog
    source.change();
    await page.locator('section.row[data-row="p2"]').waitFor();
    await page.close();
  });

  it('a link to #row-ID (a notification\'s button) opens the page at that row, marked', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${server.url}#row-${source.rows[0]!.id}`);
    await page.locator(`section#row-${source.rows[0]!.id}.target`).waitFor();
    await page.close();
  });

  it.skipIf(!process.env.NERDR_WEB_SCREENSHOT)('the page at phone width, for docs/web-phone.png', async () => {
    const now = Date.now();
    source.rows = [
      blockedRow({ id: 'p9', name: 'api', since: now - 4 * 60_000 }),
      { ...blockedRow(), id: 'd1', kind: 'done', window: '@5', name: 'docs', agent: 'codex', since: now - 12 * 60_000, summary: 'Updated docs/web.md and the screenshot.', dialog: null, lines: ['• Edited docs/web.md (+62 −0)', '• All 412 tests pass.'] },
      { ...blockedRow(), id: 'm4', kind: 'queued', window: '@7', name: 'tests', agent: 'claude', since: now - 60_000, summary: 'then run the live suite', dialog: null, message: { id: 'm4', text: 'then run the live suite and fix what fails', position: 1, queuedAt: now - 60_000 } },
    ];
    source.change();
    const page = await open();
    await page.locator('section.row[data-row="m4"]').waitFor();
    await page.screenshot({ path: path.resolve(REPO_ROOT, process.env.NERDR_WEB_SCREENSHOT!), fullPage: true });
    await page.close();
  });
});

describe.skipIf(!tmuxAvailable)('nerdr web: a real agent', () => {
  let env: LiveEnv;
  let browser: Browser | undefined;
  let web: { url: string; port: number; listen: string };
  let win: string;
  let exited: Promise<number | null>;
  let stopWeb: () => void;
  const inbox = async (): Promise<InboxRow[]> => ((await request(serverFiles(env.socketPath, env.env).socket, 'nerdr.inbox', {}, { timeoutMs: 10_000 })) as { rows: InboxRow[] }).rows;
  const blocked = async (): Promise<InboxRow | undefined> => (await inbox()).find((r) => r.window === win && r.kind === 'blocked' && r.dialog !== null);

  beforeAll(async () => {
    env = await startLiveEnv();
    const r = await env.nerdr('new', 'demo', '-d', '--name', 'asker', '--', '--auto', '0', '--work', '1', '--ask');
    expect(r.code, r.stderr).toBe(0);
    win = r.stdout.trim();
    await waitFor(async () => (await env.lsJson()).find((x) => x.name === 'asker' && x.state === 'idle'), { what: 'the agent to be idle', timeoutMs: 20_000 });
    const child = spawn(process.execPath, [NERDR_BIN, '-L', env.server, 'web', '--json'], { env: env.env, stdio: ['ignore', 'pipe', 'pipe'] });
    env.track(child.pid!);
    exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    stopWeb = () => child.kill('SIGINT');
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    web = JSON.parse(await waitFor(() => (out.includes('\n') ? out.slice(0, out.indexOf('\n')) : null), { what: 'nerdr web --json to print its URL', timeoutMs: 20_000 })) as typeof web;
    if (CHROMIUM) browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('prints {url, port, listen} on 127.0.0.1 with a token of at least 128 bits', () => {
    expect(web.listen).toBe('127.0.0.1');
    expect(web.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${web.port}/\\?token=[A-Za-z0-9_-]{43}$`));
  });

  it('401 without the token; 403 for a foreign Host, and for a POST from a foreign Origin', async () => {
    expect((await fetch(`http://127.0.0.1:${web.port}/`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${web.port}/events`)).status).toBe(401);
    const token = new URL(web.url).searchParams.get('token')!;
    expect(await raw(web.port, 'GET', `/?token=${token}`, { host: `attacker.example:${web.port}` })).toBe(403);
    const login = await fetch(web.url, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const post = (origin: string) => fetch(`http://127.0.0.1:${web.port}/snooze`, { method: 'POST', headers: { cookie, origin, 'content-type': 'application/json', 'x-nerdr-csrf': 'x' }, body: JSON.stringify({ id: 'x', forMs: 60_000 }) });
    expect((await post('http://attacker.example')).status).toBe(403);
    expect(login.headers.get('access-control-allow-origin')).toBeNull();
  });

  it.skipIf(!CHROMIUM)('the page shows the dialog; approve makes the agent go on', async () => {
    expect((await env.nerdr('send', 'asker', 'do the thing')).code).toBe(0);
    const row = await waitFor(blocked, { what: 'the dialog in the inbox', timeoutMs: 20_000 });
    const page = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(web.url);
    const card = page.locator(`section.row[data-row="${row.id}"]`);
    await card.waitFor({ timeout: 10_000 });
    expect(await card.locator('pre.dialog').textContent()).toContain('Do you want to proceed?');
    await card.locator('button[data-choice="approve"]').click();
    await waitFor(async () => (await env.tmuxOk('capture-pane', '-p', '-t', win)).includes('… ok'), { what: 'the agent to run the approved command', timeoutMs: 20_000 });
    // and the row leaves the page
    await card.waitFor({ state: 'detached', timeout: 20_000 });
    await page.close();
  });

  it.skipIf(!CHROMIUM)('a button whose dialog is gone from the screen says "the prompt changed", with the new prompt; nothing is typed', async () => {
    await waitFor(async () => (await env.lsJson()).find((x) => x.name === 'asker' && x.state !== 'working' && x.state !== 'blocked'), { what: 'the turn to end', timeoutMs: 20_000 });
    expect((await env.nerdr('send', 'asker', 'again')).code).toBe(0);
    const old = await waitFor(blocked, { what: 'a dialog', timeoutMs: 20_000 });
    // the page as it was then: its stream is held at this inbox, so the button stays
    const page = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    const held = await inbox();
    await page.route('**/events', (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: `retry: 3600000\n\nevent: inbox\ndata: ${JSON.stringify({ rows: held })}\n\n` }));
    await page.goto(web.url);
    const stale = page.locator(`section.row[data-row="${old.id}"] button[data-choice="approve"]`);
    await stale.waitFor();
    // the person answers in the window (no); then the agent asks again: another prompt
    await env.tmuxOk('send-keys', '-t', win, 'Escape');
    await waitFor(async () => (await env.tmuxOk('capture-pane', '-p', '-t', win)).includes('Permission denied'), { what: 'the dialog to close' });
    await env.tmuxOk('send-keys', '-t', win, 'once more', 'Enter');
    const now = await waitFor(async () => {
      const r = await blocked();
      return r && r.id !== old.id ? r : null;
    }, { what: 'a new dialog', timeoutMs: 20_000 });
    const screen = await env.tmuxOk('capture-pane', '-p', '-t', win);
    await stale.click();
    const notice = page.locator('.notice').first();
    await notice.waitFor();
    const text = (await notice.textContent())!;
    expect(text).toContain('the prompt changed');
    expect(text).toContain(`now: ${now.summary}`);
    // nothing typed: the new dialog still waits
    expect((await blocked())?.id).toBe(now.id);
    expect(await env.tmuxOk('capture-pane', '-p', '-t', win)).toBe(screen);
    await page.close();
  });

  it('Ctrl-C ends it with status 0, and the port is free again', async () => {
    stopWeb();
    expect(await exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${web.port}/`)).rejects.toThrow();
  });
});
