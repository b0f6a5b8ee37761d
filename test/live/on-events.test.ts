// [[on]] end to end (docs/on-events.md): the real CLI and supervisor on a private tmux server, a
// receiver on 127.0.0.1. The demo agent asks permission: exactly one POST carries the blocked
// event, also after a supervisor restart while it still waits; a command that hangs on `done` is
// killed at its timeout, and doctor shows it.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverFiles } from '../../src/paths.js';
import { startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

/** POSTs its stdin to argv[1], the event's kind in a header; exits 0 on a 200. */
const POST = `const b=[];process.stdin.on('data',d=>b.push(d)).on('end',()=>{const r=require('http').request(process.argv[1],{method:'POST',headers:{'x-nerdr-kind':process.env.NERDR_EVENT_KIND||'',
'x-nerdr-window':process.env.NERDR_EVENT_WINDOW||''}},res=>{res.resume();res.on('end',()=>process.exit(res.statusCode===200?0:1))});r.on('error',e=>{console.error(e.message);process.exit(2)});r.end(Buffer.concat(b))})`;
/** Writes its pid to argv[1] and never ends. */
const HANG = `require('fs').writeFileSync(process.argv[1],String(process.pid));console.error('hanging on purpose');setInterval(()=>{},1000)`;

/** Running: a zombie counts as gone. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe.skipIf(!tmuxAvailable)('[[on]], live: a push per event, through a local receiver', () => {
  let env: LiveEnv;
  let server: Server;
  const posts: { body: string; headers: IncomingHttpHeaders }[] = [];
  let pidFile = '';
  let win = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        posts.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    env = await startLiveEnv();
    pidFile = path.join(env.home, 'hang.pid');
    const q = JSON.stringify;
    writeFileSync(
      path.join(env.configDir, 'config.toml'),
      [
        '[[on]]',
        'event = "blocked"',
        `run = [${[process.execPath, '-e', POST, url].map((s) => q(s)).join(', ')}]`,
        '',
        '[[on]]',
        'event = "done"',
        'agent = "demo"',
        'timeout = "1s"',
        `run = [${[process.execPath, '-e', HANG, pidFile].map((s) => q(s)).join(', ')}]`,
        '',
      ].join('\n'),
    );
    const r = await env.nerdr('new', '-d', 'demo', '--name', 'asker', '--', '--auto', '0', '--work', '1', '--ask');
    expect(r.code, r.stderr).toBe(0);
    win = r.stdout.trim();
    await waitFor(async () => (await env.lsJson()).find((a) => a.window === win)?.state === 'idle', { timeoutMs: 20_000, what: 'the demo idle' });
  }, 60_000);

  afterAll(async () => {
    await env?.cleanup();
    await new Promise((resolve) => server?.close(resolve));
  });

  const state = async (): Promise<string | undefined> => (await env.lsJson()).find((a) => a.window === win)?.state;
  const log = (): string => {
    try {
      return readFileSync(serverFiles(env.socketPath, env.env).log, 'utf8');
    } catch {
      return '';
    }
  };

  it('an agent that asks permission: exactly one POST with the blocked event', async () => {
    await env.tmuxOk('send-keys', '-t', win, '-l', 'delete the build folder');
    await env.tmuxOk('send-keys', '-t', win, 'Enter');
    await waitFor(async () => (await state()) === 'blocked', { timeoutMs: 20_000, what: 'the demo blocked' });
    await waitFor(() => posts.length > 0, { timeoutMs: 10_000, what: 'the POST' });
    const e = JSON.parse(posts[0]!.body) as Record<string, unknown>;
    expect(e).toMatchObject({ kind: 'blocked', state: 'blocked', window: win, name: 'asker', agent: 'demo', session: 'user', promptId: expect.stringMatching(/^p[0-9a-f]{9}$/) });
    // the inbox's own id of that dialog: the push's link opens its row, `nerdr answer` takes it
    const inbox = JSON.parse((await env.nerdr('inbox', '--json')).stdout) as { rows: { id: string; window: string; kind: string }[] };
    expect(inbox.rows.find((r) => r.window === win && r.kind === 'blocked')?.id).toBe(e.promptId);
    expect((e.lines as string[]).join('\n')).toContain('Do you want to proceed?');
    expect(e.key).toBe(`${win}|blocked|${e.since as number}`);
    expect(posts[0]!.headers['x-nerdr-kind']).toBe('blocked');
    expect(posts[0]!.headers['x-nerdr-window']).toBe(win);
  }, 40_000);

  it('a supervisor restart while it still waits does not post again', async () => {
    const before = await env.supervisorPid();
    const r = await env.nerdr('supervisor', 'restart');
    expect(r.code, r.stderr).toBe(0);
    await waitFor(async () => {
      const pid = await env.supervisorPid();
      return pid !== null && pid !== before;
    }, { timeoutMs: 20_000, what: 'a new supervisor' });
    await waitFor(() => /on blocked: \S+ is still blocked since before this supervisor started; not run again/.test(log()), { timeoutMs: 20_000, what: 'the new supervisor to see the window still blocked' });
    expect(posts).toHaveLength(1);
  }, 40_000);

  it('a command that hangs is killed at its timeout, and doctor shows it', async () => {
    await env.tmuxOk('send-keys', '-t', win, '1');
    const pid = await waitFor(() => {
      try {
        return Number(readFileSync(pidFile, 'utf8')) || null;
      } catch {
        return null;
      }
    }, { timeoutMs: 20_000, what: 'the done command started' });
    await waitFor(() => !alive(pid), { timeoutMs: 10_000, what: 'the hanging command killed' });
    await waitFor(() => /on done asker \(@\d+\): .* timed out after 1 s/.test(log()), { what: 'the timeout in the log' });
    const d = await env.nerdr('doctor', '--json');
    const check = (JSON.parse(d.stdout) as { name: string; ok: boolean; warn?: boolean; detail: string }[]).find((c) => c.name === 'on events')!;
    expect(check).toMatchObject({ ok: true, warn: true });
    expect(check.detail).toMatch(/^2 rules \(blocked, done\); 1 failure\(s\) kept, the last:\ndone asker \(@\d+\): .* timed out after 1 s \(killed with SIGTERM\): hanging on purpose, \d+ s ago$/);
    const text = await env.nerdr('doctor');
    expect(text.stdout).toMatch(/warn on events: .*\n.*timed out after 1 s/);
    // one blocked entry, one POST
    expect(posts).toHaveLength(1);
  }, 40_000);
});
