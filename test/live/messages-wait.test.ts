// Messages, waits, next and notifications end to end (issue Messages), real CLI, real tmux.
// `nerdr send` to the demo agent (typed, submitted, literal), never into its dialog, a 100 KB
// message; the queue across a stall with a fake agent that never responds (helpers/fake-agent.js
// drawing the demo's idle screen, identified as demo through NERDR_AGENT in a --cmd window);
// `nerdr wait` exit codes; `nerdr next` with an attached client; the bell flag and OSC 9 for a
// window nobody is looking at. Last (they restart the supervisor): a broken queue file is kept
// aside and reported, a queue that cannot be written fails the send, and a message that cannot
// be typed in exactly (NUL, not UTF-8) is refused with the byte offset.
// This file: nerdr wait, next and notifications.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { NERDR_BIN, REPO_ROOT, run, tmuxAtLeast, tmuxAvailable, waitFor, type RunResult } from './helpers/env.js';
import { messagesSuite } from './helpers/messages-suite.js';

const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');
const DEMO_IDLE = path.join(REPO_ROOT, 'test', 'fixtures', 'screens', 'demo', '01-idle.ansi.txt');

describe.skipIf(!tmuxAvailable)('messages, live: nerdr wait, next and notifications', () => {
  const s = messagesSuite();
  const { rec, newWindow, row, read, send, settle, demo, attachClient, clientWindow } = s;

  describe('nerdr wait', () => {
    it('returns on the state, times out with 124, exits 3 when the agent exits', async () => {
      const win = await demo('waiter');
      // already idle: returns at once with it
      const now = await s.env.nerdr('wait', win, '--timeout', '20');
      expect(now.code, now.stderr).toBe(0);
      expect(now.stdout).toMatch(/idle|done/);
      // a state reached later
      const pending = s.env.nerdr('wait', win, '--until', 'working', '--timeout', '30', '--json');
      await s.env.tmuxOk('send-keys', '-t', win, '-l', 'go');
      await s.env.tmuxOk('send-keys', '-t', win, 'Enter');
      const w = await pending;
      expect(w.code, w.stderr).toBe(0);
      expect((JSON.parse(w.stdout) as { state: string }).state).toBe('working');
      await settle(win);
      // timeout
      const t = await s.env.nerdr('wait', win, '--until', 'blocked', '--timeout', '1');
      expect(t.code).toBe(124);
      expect(t.stderr).toMatch(/timed out/);
      // the agent exits while waited for
      const gone = s.env.nerdr('wait', win, '--until', 'blocked', '--timeout', '30');
      await waitFor(async () => (await s.env.nerdr('supervisor', 'status', '--json')).code === 0, { what: 'the supervisor' });
      await s.env.tmuxOk('send-keys', '-t', win, 'C-c');
      const g = await gone;
      expect(g.code, g.stderr).toBe(3);
      expect(g.stderr).toMatch(/exited|gone/);
    }, 90_000);

    it('an unknown target exits 1, even when a window name in the error says "restarted" or "exited"', async () => {
      await demo('restarted-build');
      await demo('exited-once');
      const r = await s.env.nerdr('wait', 'typo', '--timeout', '5');
      expect(r.stderr).toMatch(/no agent "typo".*restarted-build/);
      expect(r.code, r.stderr).toBe(1);
    }, 60_000);
  });

  describe('nerdr next and notifications (an attached s.client)', () => {
    let bellWin = '';

    it('a blocked transition in a window no s.client shows sets its bell flag', async () => {
      await attachClient();
      bellWin = await demo('bell', '--ask');
      await s.env.tmuxOk('select-window', '-t', '=user:0');
      expect(await clientWindow()).not.toBe(bellWin);
      const m = rec.mark(bellWin);
      await s.env.tmuxOk('send-keys', '-t', bellWin, '-l', 'ring');
      await s.env.tmuxOk('send-keys', '-t', bellWin, 'Enter');
      await rec.reached(bellWin, 'blocked', m);
      await waitFor(async () => (await s.env.tmuxOk('display', '-p', '-t', bellWin, '#{window_bell_flag}')).trim() === '1', { what: 'the bell flag on the blocked window' });
    });

    // tmux 3.3 prints #{allow-passthrough} as "1"/"0" (≥ 3.4: on/off/all); both must count.
    it('with allow-passthrough on, the s.client\'s terminal receives OSC 9 and OSC 777', async () => {
      expect(bellWin).not.toBe('');
      if (tmuxAtLeast(3, 3)) expect((await s.env.tmuxOk('display', '-p', '-t', '=user:0', '#{allow-passthrough}')).trim()).toMatch(/^(1|on)$/);
      try {
        await waitFor(() => readFileSync(s.clientLog, 'latin1').includes('\x1b]9;'), { timeoutMs: 8000, what: 'OSC 9 in the s.client terminal output' });
      } catch (err) {
        // which side lost it: the supervisor's "notified … by bell, osc×N" line says whether it
        // wrote the sequence to a shown pane's tty (then tmux dropped it on its way to the client)
        const said = s.env.supervisorLog().split('\n').filter((l) => /notified|bell/.test(l)).slice(-5);
        const clients = await s.env.tmuxOk('list-clients', '-F', '#{client_control_mode} #{window_id} #{pane_tty} #{client_written} #{client_discarded}');
        throw new Error(`${(err as Error).message}\nsupervisor: ${said.join(' | ') || '(no notification logged)'}\nclients: ${clients.trim()}`);
      }
      const log = readFileSync(s.clientLog, 'utf8');
      expect(log).toMatch(/\x1b\]9;nerdr: bell: demo needs you/);
      expect(log).toContain('\x1b]777;notify;nerdr: bell;demo needs you');
    });

    it('next: oldest blocked, else oldest unseen done; with nothing pending it says so', async () => {
      await attachClient();
      // leave only our own: every earlier window settles and is seen
      const blockedWin = (await s.env.lsJson()).find((a) => a.name === 'bell')!.window;
      const doneWin = await demo('finisher');
      let m = rec.mark(doneWin);
      await s.env.tmuxOk('send-keys', '-t', doneWin, '-l', 'quick');
      await s.env.tmuxOk('send-keys', '-t', doneWin, 'Enter');
      await rec.reached(doneWin, 'done', m, 30_000);
      // other dones from earlier tests: view them so that only `finisher` is done
      for (const a of await s.env.lsJson()) {
        if (a.state !== 'done' || a.window === doneWin) continue;
        await s.env.tmuxOk('select-window', '-t', a.window);
        await waitFor(async () => (await row(a.window)).state !== 'done', { what: `${a.name} seen` });
      }
      await s.env.tmuxOk('select-window', '-t', '=user:0');
      expect((await row(blockedWin)).state).toBe('blocked');

      const n1 = await s.env.nerdr('next');
      expect(n1.code, n1.stderr).toBe(0);
      expect(n1.stdout).toContain('bell (blocked)');
      expect(await clientWindow()).toBe(blockedWin);

      // answer it while shown: its done is seen at once; next goes to the done one
      m = rec.mark(blockedWin);
      await s.env.tmuxOk('send-keys', '-t', blockedWin, '1');
      await rec.reached(blockedWin, 'working', m);
      await waitFor(async () => (await row(blockedWin)).state === 'idle', { timeoutMs: 30_000, what: 'bell finished and seen' });
      const n2 = await s.env.nerdr('next');
      expect(n2.code, n2.stderr).toBe(0);
      expect(n2.stdout).toContain('finisher (done)');
      expect(await clientWindow()).toBe(doneWin);
      await waitFor(async () => (await row(doneWin)).state === 'idle', { what: 'finisher seen' });

      const n3 = await s.env.nerdr('next');
      expect(n3.code, n3.stderr).toBe(0);
      expect(n3.stdout).toMatch(/nothing needs you/);
      expect(await clientWindow()).toBe(doneWin);
    }, 90_000);
  });

});
