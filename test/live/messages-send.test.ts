// Messages, waits, next and notifications end to end (issue Messages), real CLI, real tmux.
// `nerdr send` to the demo agent (typed, submitted, literal), never into its dialog, a 100 KB
// message; the queue across a stall with a fake agent that never responds (helpers/fake-agent.js
// drawing the demo's idle screen, identified as demo through NERDR_AGENT in a --cmd window);
// `nerdr wait` exit codes; `nerdr next` with an attached client; the bell flag and OSC 9 for a
// window nobody is looking at. Last (they restart the supervisor): a broken queue file is kept
// aside and reported, a queue that cannot be written fails the send, and a message that cannot
// be typed in exactly (NUL, not UTF-8) is refused with the byte offset.
// This file: nerdr send: typed and submitted, literal, never into a dialog, a stalled queue.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { NERDR_BIN, REPO_ROOT, run, tmuxAvailable, waitFor, type RunResult, paneEnv } from './helpers/env.js';
import { messagesSuite } from './helpers/messages-suite.js';

const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');
const DEMO_IDLE = path.join(REPO_ROOT, 'test', 'fixtures', 'screens', 'demo', '01-idle.ansi.txt');

describe.skipIf(!tmuxAvailable)('messages, live: nerdr send: typed and submitted, literal, never into a dialog, a stalled queue', () => {
  const s = messagesSuite();
  const { rec, newWindow, row, read, send, settle, demo, attachClient, clientWindow } = s;

  describe('nerdr send to the demo agent', () => {
    let win = '';
    beforeAll(async () => {
      win = await demo('msg');
    }, 60_000);

    it('an idle agent gets the message typed and submitted: "> message" on screen, working, the queue drains', async () => {
      const m = rec.mark(win);
      await send(win, 'hello from nerdr send');
      await rec.reached(win, 'working', m);
      expect(await read(win)).toContain('> hello from nerdr send');
      await waitFor(async () => (await row(win)).queue === 0, { what: 'the queue empty' });
      await settle(win);
    });

    it('quotes, #{…}, $HOME, ; and backslashes arrive literally', async () => {
      const text = `it's "quoted" #{session_name} #(echo no) $HOME \`id\` ; echo injected \\n %% ~`;
      const m = rec.mark(win);
      const r = await s.env.nerdr('send', win, text);
      expect(r.code, r.stderr).toBe(0);
      await rec.reached(win, 'working', m);
      const screen = await read(win);
      expect(screen).toContain(`> ${text}`);
      await settle(win);
    });

    it('a 100 KB message is accepted and leaves the queue', async () => {
      // the demo draws one 100 KB line across its whole screen, which hides its spinner from the
      // manifest: whether it is confirmed (working) or stalls (5 s) is not the point here; the
      // byte-exact arrival of such a message is checked with the fake agent below
      const text = 'BIG-START-' + 'abcdefghij'.repeat(10 * 1024);
      expect(Buffer.byteLength(text)).toBeGreaterThan(100 * 1024);
      const r = await s.env.nerdrWith(['send', win, '--json'], { input: text });
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { position: number }).position).toBe(1);
      await waitFor(async () => (await row(win)).queue === 0, { timeoutMs: 20_000, what: 'the big message out of the queue' });
    }, 60_000);

    it('a message sent while the agent is blocked is not typed into the dialog; it goes in after the dialog is answered', async () => {
      const ask = await demo('asker', '--ask');
      let m = rec.mark(ask);
      await s.env.tmuxOk('send-keys', '-t', ask, '-l', 'first task');
      await s.env.tmuxOk('send-keys', '-t', ask, 'Enter');
      await rec.reached(ask, 'blocked', m);
      m = rec.mark(ask);
      await send(ask, 'queued while blocked');
      expect((await row(ask)).queue).toBe(1);
      // well past the paste and Enter delays: still at the dialog, nothing typed
      await waitFor(() => rec.states(ask, m).length > 0, { timeoutMs: 3000 }).catch(() => undefined);
      expect(rec.states(ask, m)).toEqual([]);
      const screen = await read(ask);
      expect(screen).toContain('Do you want to proceed?');
      expect(screen).not.toContain('queued while blocked');
      expect((await row(ask)).state).toBe('blocked');
      expect((await row(ask)).queue).toBe(1);
      // answer: working, finishing, then the message goes in (and its turn asks again)
      await s.env.tmuxOk('send-keys', '-t', ask, '1');
      await waitFor(async () => (await read(ask)).includes('> queued while blocked'), { timeoutMs: 30_000, what: 'the queued message typed after the dialog' });
      expect(await read(ask)).toContain('Bash(rm -rf build/ && npm run build) … ok');
      await waitFor(async () => (await row(ask)).queue === 0, { what: 'the queue empty' });
      await settle(ask);
    }, 90_000);
  });

  describe('a queue across a stall (an agent that never responds)', () => {
    let win = '';
    const inputLog = () => path.join(s.env.home, 'deaf-input.log');

    beforeAll(async () => {
      const cmd = `NERDR_AGENT=demo FAKE_AGENT_SCREEN='${DEMO_IDLE}' FAKE_AGENT_INPUT_LOG='${inputLog()}' '${process.execPath}' '${FAKE}'; exit`;
      win = await newWindow('--name', 'deaf', '--cmd', cmd);
      if (rec.rows.size === 0) {
        await rec.start((await paneEnv(s.env, win)).NERDR_SOCKET!);
      }
      await waitFor(async () => {
        const r = await row(win);
        return r.agent === 'demo' && ['idle', 'done'].includes(r.state);
      }, { timeoutMs: 25_000, what: 'the deaf fake identified as demo and idle' });
    }, 60_000);

    function arrived(): string[] {
      if (!existsSync(inputLog())) return [];
      const raw = readFileSync(inputLog(), 'utf8');
      return [...raw.matchAll(/\x1b\[200~([\s\S]*?)\x1b\[201~/g)].map((x) => x[1]!);
    }

    it('3 messages: the first stalls after 5 s (queueStalled, ✉2⏸), the rest wait in order; a visit resumes them, in order', async () => {
      const msgs = ['first "one"\nsecond line $HOME #{pane_id} ;', 'second message', 'third message'];
      for (const t of msgs) await send(win, t);
      // the first is pasted (literally, newline included) and submitted
      await waitFor(() => arrived().length >= 1, { what: 'the first message typed' });
      expect(arrived()[0]).toBe(msgs[0]);
      expect(readFileSync(inputLog(), 'utf8')).toMatch(/\x1b\[201~\r/);
      // no response within 5 s: stalled; the rest stay queued
      const stalled = await waitFor(async () => {
        const r = await row(win);
        return r.queueStalled ? r : null;
      }, { timeoutMs: 20_000, what: 'the queue stalled' });
      expect(stalled.queue).toBe(2);
      // the light is written with the next batch of options, a moment after the row changes
      await waitFor(async () => (await s.env.tmuxOk('show-options', '-wv', '-t', win, '@nerdr_light')).includes('✉2⏸'), { what: 'the light to show ✉2⏸' });
      expect(arrived()).toEqual([msgs[0]]);
      // nobody visits: nothing more goes in (well past a delivery)
      await waitFor(() => arrived().length > 1, { timeoutMs: 3000 }).catch(() => undefined);
      expect(arrived()).toEqual([msgs[0]]);
      expect((await row(win)).queue).toBe(2);
      // the user visits the window: the rest goes on, in order (each stalls in turn, but the
      // window is being looked at, so the next goes on)
      await attachClient();
      await s.env.tmuxOk('select-window', '-t', win);
      await waitFor(() => arrived().length >= 2, { timeoutMs: 20_000, what: `the second typed after the visit (log: ${JSON.stringify(readFileSync(inputLog(), 'utf8'))})` });
      expect(arrived()).toEqual(msgs.slice(0, 2));
      // the second stalls too, but the window is being looked at: the queue goes on by itself
      await waitFor(() => arrived().length === 3, { timeoutMs: 40_000, what: `all three typed (got ${JSON.stringify(readFileSync(inputLog(), 'utf8'))})` });
      expect(arrived()).toEqual(msgs);
      await waitFor(async () => (await row(win)).queue === 0, { timeoutMs: 20_000, what: 'the queue empty' });
      await s.env.tmuxOk('select-window', '-t', '=user:0');
    }, 120_000);

    it('a 100 KB message arrives byte for byte, in one bracketed paste', async () => {
      const text = 'BIG-' + Array.from({ length: 2048 }, (_, i) => `${i}:quote"'$HOME#{x};`).join('').padEnd(100 * 1024, 'z');
      expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(100 * 1024);
      const before = arrived().length;
      await send(win, text);
      // the queue is paused since the last stall: a visit lets it go on
      await s.env.tmuxOk('select-window', '-t', win);
      await waitFor(() => arrived().length > before, { timeoutMs: 30_000, what: 'the big paste complete' });
      expect(arrived()[before]).toBe(text);
      await s.env.tmuxOk('select-window', '-t', '=user:0');
    }, 60_000);
  });
});
