// Messages, waits, next and notifications end to end (issue Messages), real CLI, real tmux.
// `nerdr send` to the demo agent (typed, submitted, literal), never into its dialog, a 100 KB
// message; the queue across a stall with a fake agent that never responds (helpers/fake-agent.js
// drawing the demo's idle screen, identified as demo through NERDR_AGENT in a --cmd window);
// `nerdr wait` exit codes; `nerdr next` with an attached client; the bell flag and OSC 9 for a
// window nobody is looking at. Last (they restart the supervisor): a broken queue file is kept
// aside and reported, a queue that cannot be written fails the send, and a message that cannot
// be typed in exactly (NUL, not UTF-8) is refused with the byte offset.
// This file: queued messages are never lost silently; a message is delivered exactly or refused.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { NERDR_BIN, REPO_ROOT, run, tmuxAvailable, waitFor, type RunResult, paneEnv } from './helpers/env.js';
import { messagesSuite } from './helpers/messages-suite.js';

const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');
const DEMO_IDLE = path.join(REPO_ROOT, 'test', 'fixtures', 'screens', 'demo', '01-idle.ansi.txt');

describe.skipIf(!tmuxAvailable)('messages, live: queued messages are never lost silently; a message is delivered exactly or refused', () => {
  const s = messagesSuite();
  const { rec, newWindow, row, read, send, settle, demo, attachClient, clientWindow } = s;

  /** `nerdr -L <server> …args` with these bytes on stdin (the harness's input is a string). */
  function nerdrBytes(args: string[], input: Buffer): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [NERDR_BIN, '-L', s.env.server, ...args], { env: s.env.env, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.stdin.on('error', () => undefined);
      child.stdin.end(input);
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
      });
    });
  }

  const queuesDir = (): string => path.join(s.env.stateDir, 'queues');
  const coreLog = (): string =>
    readdirSync(s.env.stateDir)
      .filter((f) => f.startsWith('core'))
      .map((f) => readFileSync(path.join(s.env.stateDir, f), 'utf8'))
      .join('');
  const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  /** Like settle(), from `nerdr ls` (the recorder does not follow a restarted supervisor). */
  async function settled(win: string): Promise<void> {
    await waitFor(
      async () => {
        const r = await row(win);
        if (r.state === 'blocked') await s.env.tmuxOk('send-keys', '-t', win, '1');
        return (r.state === 'idle' || r.state === 'done') && r.queue === 0;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: `${win} to settle with an empty queue` },
    );
  }

  describe('queued messages are never lost silently', () => {
    let win = '';
    let id = '';
    beforeAll(async () => {
      win = await demo('durable');
      id = (await row(win)).id;
    }, 60_000);

    it('a truncated queue file found by a new supervisor is kept aside byte for byte, logged, and told to the next sender; never overwritten', async () => {
      const stop = await s.env.nerdr('supervisor', 'stop');
      expect(stop.code, stop.stderr).toBe(0);
      mkdirSync(queuesDir(), { recursive: true });
      const broken = '{"messages":[{"id":"x1","text":"the message a crash cut short","queuedAt":1900000000000}';
      writeFileSync(path.join(queuesDir(), `${id}.json`), broken);
      // the next command starts a new supervisor, which finds the window and its queue file
      expect((await s.env.lsJson()).some((a) => a.window === win)).toBe(true);
      const aside = await waitFor(() => readdirSync(queuesDir()).find((f) => f.startsWith(`${id}.broken-`)), {
        what: `the broken queue kept as ${id}.broken-… (have ${readdirSync(queuesDir()).join(', ')})`,
      });
      expect(readFileSync(path.join(queuesDir(), aside), 'utf8')).toBe(broken);
      expect(coreLog()).toMatch(new RegExp(`warn durable: the message queue .*${escapeRe(id)}\\.json is not JSON .*kept as .*${escapeRe(aside)}`));
      const r = await s.env.nerdr('send', win, 'after the crash');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^nerdr: warning: the message queue .* is not JSON .*its messages were not delivered; it is kept as /);
      expect(r.stdout).toMatch(/queued for .* as #1/);
      await waitFor(async () => (await read(win)).includes('> after the crash'), { timeoutMs: 30_000, what: 'the new message typed' });
      expect(readFileSync(path.join(queuesDir(), aside), 'utf8')).toBe(broken);
      // told once
      await settled(win);
      expect((await row(win)).queue).toBe(0);
      const again = await s.env.nerdr('send', win, 'and once more');
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toBe('');
      await waitFor(async () => (await row(win)).queue === 0, { timeoutMs: 30_000, what: 'the queue empty' });
    }, 90_000);

    it('a send whose queue cannot be written exits 1 naming the file, the cause and a fix; nothing is queued or typed', async () => {
      await settled(win);
      // the queue folder cannot be made: a file is in its place (as root a read-only folder
      // would not stop the write; a full disk is the unit test's, test/unit/store/queue.test.ts)
      rmSync(queuesDir(), { recursive: true, force: true });
      writeFileSync(queuesDir(), 'in the way');
      try {
        const r = await s.env.nerdr('send', win, 'never typed');
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(new RegExp(`^nerdr: the message was not queued: cannot write ${escapeRe(path.join(queuesDir(), `${id}.json`))}: (EEXIST|ENOTDIR)`));
        expect(r.stderr).toMatch(/\n {2}fix: .*is not a folder: move that file away, then send again/);
        expect((await row(win)).queue).toBe(0);
        expect(await read(win)).not.toContain('never typed');
      } finally {
        rmSync(queuesDir(), { force: true });
      }
      const ok = await s.env.nerdr('send', win, 'the folder is back');
      expect(ok.code, ok.stderr).toBe(0);
      await waitFor(async () => (await read(win)).includes('> the folder is back'), { timeoutMs: 20_000, what: 'the message typed once the folder is back' });
      expect(await read(win)).not.toContain('never typed');
    }, 90_000);
  });

  describe('a message is delivered exactly or refused', () => {
    let win = '';
    beforeAll(async () => {
      win = await demo('exact');
    }, 60_000);

    async function refused(r: RunResult, why: RegExp): Promise<void> {
      expect(r.code, r.stdout).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(why);
      expect(r.stderr).toMatch(/\n {2}fix: /);
      expect((await row(win)).queue).toBe(0);
    }

    it('a NUL on stdin is refused with its byte offset; nothing is queued', async () => {
      await refused(await nerdrBytes(['send', win, '-'], Buffer.from('a\0b')), /^nerdr: the message on stdin cannot be typed in exactly: it holds a NUL byte at byte offset 1/);
    });

    it('bytes that are not UTF-8, on stdin or in the arguments, are refused with their offset', async () => {
      await refused(await nerdrBytes(['send', win], Buffer.from([0x68, 0x69, 0xff, 0x21])), /not valid UTF-8: the bytes at byte offset 2 \(0xff 0x21…\)/);
      await refused(await nerdrBytes(['send', win, '-'], Buffer.from('café', 'latin1')), /not valid UTF-8: the bytes at byte offset 3 \(0xe9…\)/);
      // argv can carry such bytes only through a shell: Node's spawn encodes its strings as UTF-8
      const r = await run('sh', ['-c', `exec "$0" "$1" -L "$2" send "$3" "ok $(printf 'caf\\351')"`, process.execPath, NERDR_BIN, s.env.server, win], { env: s.env.env });
      await refused(r, /argument .* cannot be typed in exactly: it is not valid UTF-8: the bytes at byte offset 6 \(0xe9…\)/);
    });

    it('a s.client other than the CLI gets invalid_message for a NUL or a lone surrogate', async () => {
      const sock = (await paneEnv(s.env, win)).NERDR_SOCKET!;
      const ask = (line: string): Promise<{ error?: { code: string; message: string } }> =>
        new Promise((resolve, reject) => {
          const c = connect(sock);
          let buf = '';
          c.on('error', reject);
          c.on('connect', () => c.write(line + '\n'));
          c.on('data', (d: Buffer) => {
            buf += d.toString('utf8');
            if (buf.includes('\n')) {
              c.destroy();
              resolve(JSON.parse(buf.slice(0, buf.indexOf('\n'))) as { error?: { code: string; message: string } });
            }
          });
        });
      const send = (message: string): string => JSON.stringify({ id: 'raw', method: 'nerdr.send', params: { target: win, message } });
      expect(await ask(send('a\u0000b'))).toMatchObject({ error: { code: 'invalid_message', message: expect.stringMatching(/NUL byte at byte offset 1/) } });
      // JSON.stringify writes a lone surrogate as \ud800, as another s.client might
      expect(await ask(send('x\ud800'))).toMatchObject({ error: { code: 'invalid_message', message: expect.stringMatching(/lone UTF-16 surrogate \(U\+D800\) at byte offset 1/) } });
      expect((await row(win)).queue).toBe(0);
    });

    it('UTF-8 text arrives as it was sent', async () => {
      const text = 'héllo wörld ✓ — ça va';
      const r = await nerdrBytes(['send', win, '-'], Buffer.from(text + '\n'));
      expect(r.code, r.stderr).toBe(0);
      await waitFor(async () => (await read(win)).includes(`> ${text}`), { timeoutMs: 20_000, what: 'the UTF-8 message on screen' });
    });
  });
});
