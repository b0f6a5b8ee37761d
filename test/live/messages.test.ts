// Messages, waits, next and notifications end to end (issue Messages), real CLI, real tmux.
// `nerdr send` to the demo agent (typed, submitted, literal), never into its dialog, a 100 KB
// message; the queue across a stall with a fake agent that never responds (helpers/fake-agent.js
// drawing the demo's idle screen, identified as demo through NERDR_AGENT in a --cmd window);
// `nerdr wait` exit codes; `nerdr next` with an attached client; the bell flag and OSC 9 for a
// window nobody is looking at. Last (they restart the supervisor): a broken queue file is kept
// aside and reported, a queue that cannot be written fails the send, and a message that cannot
// be typed in exactly (NUL, not UTF-8) is refused with the byte offset.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NERDR_BIN, REPO_ROOT, run, startLiveEnv, tmuxAtLeast, tmuxAvailable, waitFor, type AgentRowLike, type LiveEnv, type RunResult, processEnv } from './helpers/env.js';
import { Recorder } from './helpers/recorder.js';

const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');
const DEMO_IDLE = path.join(REPO_ROOT, 'test', 'fixtures', 'screens', 'demo', '01-idle.ansi.txt');

describe.skipIf(!tmuxAvailable)('messages, wait, next, notifications: live', () => {
  let env: LiveEnv;
  const rec = new Recorder();
  let client: ChildProcess | null = null;
  let clientLog = '';

  async function newWindow(...args: string[]): Promise<string> {
    const r = await env.nerdr('new', '-d', ...args);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  }

  async function row(win: string): Promise<AgentRowLike> {
    const r = (await env.lsJson()).find((a) => a.window === win);
    if (!r) throw new Error(`${win} not in ls`);
    return r;
  }

  async function read(win: string): Promise<string> {
    const r = await env.nerdr('read', win);
    if (r.code !== 0) throw new Error(`nerdr read: ${r.stderr}`);
    return r.stdout;
  }

  async function send(win: string, message: string): Promise<void> {
    const r = await env.nerdrWith(['send', win], { input: message });
    expect(r.code, r.stderr).toBe(0);
  }

  /** The demo settles: idle or done; a dialog on the way is answered with 1. */
  async function settle(win: string): Promise<void> {
    await waitFor(
      async () => {
        const s = rec.last(win)?.state;
        if (s === 'blocked') await env.tmuxOk('send-keys', '-t', win, '1');
        return s === 'idle' || s === 'done';
      },
      { timeoutMs: 30_000, intervalMs: 200, what: `${win} to settle` },
    );
  }

  async function demo(name: string, ...flags: string[]): Promise<string> {
    const win = await newWindow('demo', '--name', name, '--', '--auto', '0', '--work', '1', ...flags);
    if (rec.rows.size === 0) {
      const pid = (await env.tmuxOk('display', '-p', '-t', win, '#{pane_pid}')).trim();
      await rec.start(processEnv(pid).NERDR_SOCKET!);
    }
    await waitFor(async () => ['idle', 'done'].includes((await row(win)).state), { timeoutMs: 20_000, what: `${name} idle` });
    return win;
  }

  async function attachClient(): Promise<void> {
    if (client) return;
    clientLog = path.join(env.home, 'client.log');
    // stdin stays an open pipe: at EOF on its stdin `script` types ^D into the client, which tmux
    // hands to the active pane (the session's shell, which exits)
    client = spawn('script', ['-qfc', `tmux -L ${env.server} attach -t user`, clientLog], { env: env.env, stdio: ['pipe', 'ignore', 'ignore'] });
    env.track(client.pid!);
    await waitFor(async () => (await env.tmuxOk('list-clients', '-F', '#{client_control_mode}')).split('\n').includes('0'), { what: 'the attached client' });
  }

  async function clientWindow(): Promise<string> {
    const lines = (await env.tmuxOk('list-clients', '-F', '#{client_control_mode} #{window_id}')).split('\n');
    return lines.find((l) => l.startsWith('0 '))!.slice(2);
  }

  beforeAll(async () => {
    env = await startLiveEnv();
    // tmux 3.3 added allow-passthrough (off by default); 3.2 always passes DCS passthrough on
    if (tmuxAtLeast(3, 3)) await env.tmuxOk('set-option', '-gw', 'allow-passthrough', 'on');
  }, 60_000);

  afterAll(async () => {
    if (process.env.NERDR_LIVE_DEBUG) {
      const fs = await import('node:fs');
      for (const f of fs.readdirSync(env.stateDir)) if (f.startsWith('core')) console.log(fs.readFileSync(path.join(env.stateDir, f), 'utf8').slice(-6000));
    }
    rec.stop();
    if (client?.pid) client.kill('SIGKILL');
    await env?.cleanup();
  });

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
      const r = await env.nerdr('send', win, text);
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
      const r = await env.nerdrWith(['send', win, '--json'], { input: text });
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { position: number }).position).toBe(1);
      await waitFor(async () => (await row(win)).queue === 0, { timeoutMs: 20_000, what: 'the big message out of the queue' });
    }, 60_000);

    it('a message sent while the agent is blocked is not typed into the dialog; it goes in after the dialog is answered', async () => {
      const ask = await demo('asker', '--ask');
      let m = rec.mark(ask);
      await env.tmuxOk('send-keys', '-t', ask, '-l', 'first task');
      await env.tmuxOk('send-keys', '-t', ask, 'Enter');
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
      await env.tmuxOk('send-keys', '-t', ask, '1');
      await waitFor(async () => (await read(ask)).includes('> queued while blocked'), { timeoutMs: 30_000, what: 'the queued message typed after the dialog' });
      expect(await read(ask)).toContain('Bash(rm -rf build/ && npm run build) … ok');
      await waitFor(async () => (await row(ask)).queue === 0, { what: 'the queue empty' });
      await settle(ask);
    }, 90_000);
  });

  describe('a queue across a stall (an agent that never responds)', () => {
    let win = '';
    const inputLog = () => path.join(env.home, 'deaf-input.log');

    beforeAll(async () => {
      const cmd = `NERDR_AGENT=demo FAKE_AGENT_SCREEN='${DEMO_IDLE}' FAKE_AGENT_INPUT_LOG='${inputLog()}' '${process.execPath}' '${FAKE}'; exit`;
      win = await newWindow('--name', 'deaf', '--cmd', cmd);
      if (rec.rows.size === 0) {
        const pid = (await env.tmuxOk('display', '-p', '-t', win, '#{pane_pid}')).trim();
        await rec.start(processEnv(pid).NERDR_SOCKET!);
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
      expect((await env.tmuxOk('show-options', '-wv', '-t', win, '@nerdr_light')).trim()).toContain('✉2⏸');
      expect(arrived()).toEqual([msgs[0]]);
      // nobody visits: nothing more goes in (well past a delivery)
      await waitFor(() => arrived().length > 1, { timeoutMs: 3000 }).catch(() => undefined);
      expect(arrived()).toEqual([msgs[0]]);
      expect((await row(win)).queue).toBe(2);
      // the user visits the window: the rest goes on, in order (each stalls in turn, but the
      // window is being looked at, so the next goes on)
      await attachClient();
      await env.tmuxOk('select-window', '-t', win);
      await waitFor(() => arrived().length >= 2, { timeoutMs: 20_000, what: `the second typed after the visit (log: ${JSON.stringify(readFileSync(inputLog(), 'utf8'))})` });
      expect(arrived()).toEqual(msgs.slice(0, 2));
      // the second stalls too, but the window is being looked at: the queue goes on by itself
      await waitFor(() => arrived().length === 3, { timeoutMs: 40_000, what: `all three typed (got ${JSON.stringify(readFileSync(inputLog(), 'utf8'))})` });
      expect(arrived()).toEqual(msgs);
      await waitFor(async () => (await row(win)).queue === 0, { timeoutMs: 20_000, what: 'the queue empty' });
      await env.tmuxOk('select-window', '-t', '=user:0');
    }, 120_000);

    it('a 100 KB message arrives byte for byte, in one bracketed paste', async () => {
      const text = 'BIG-' + Array.from({ length: 2048 }, (_, i) => `${i}:quote"'$HOME#{x};`).join('').padEnd(100 * 1024, 'z');
      expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(100 * 1024);
      const before = arrived().length;
      await send(win, text);
      // the queue is paused since the last stall: a visit lets it go on
      await env.tmuxOk('select-window', '-t', win);
      await waitFor(() => arrived().length > before, { timeoutMs: 30_000, what: 'the big paste complete' });
      expect(arrived()[before]).toBe(text);
      await env.tmuxOk('select-window', '-t', '=user:0');
    }, 60_000);
  });

  describe('nerdr wait', () => {
    it('returns on the state, times out with 124, exits 3 when the agent exits', async () => {
      const win = await demo('waiter');
      // already idle: returns at once with it
      const now = await env.nerdr('wait', win, '--timeout', '20');
      expect(now.code, now.stderr).toBe(0);
      expect(now.stdout).toMatch(/idle|done/);
      // a state reached later
      const pending = env.nerdr('wait', win, '--until', 'working', '--timeout', '30', '--json');
      await env.tmuxOk('send-keys', '-t', win, '-l', 'go');
      await env.tmuxOk('send-keys', '-t', win, 'Enter');
      const w = await pending;
      expect(w.code, w.stderr).toBe(0);
      expect((JSON.parse(w.stdout) as { state: string }).state).toBe('working');
      await settle(win);
      // timeout
      const t = await env.nerdr('wait', win, '--until', 'blocked', '--timeout', '1');
      expect(t.code).toBe(124);
      expect(t.stderr).toMatch(/timed out/);
      // the agent exits while waited for
      const gone = env.nerdr('wait', win, '--until', 'blocked', '--timeout', '30');
      await waitFor(async () => (await env.nerdr('supervisor', 'status', '--json')).code === 0, { what: 'the supervisor' });
      await env.tmuxOk('send-keys', '-t', win, 'C-c');
      const g = await gone;
      expect(g.code, g.stderr).toBe(3);
      expect(g.stderr).toMatch(/exited|gone/);
    }, 90_000);

    it('an unknown target exits 1, even when a window name in the error says "restarted" or "exited"', async () => {
      await demo('restarted-build');
      await demo('exited-once');
      const r = await env.nerdr('wait', 'typo', '--timeout', '5');
      expect(r.stderr).toMatch(/no agent "typo".*restarted-build/);
      expect(r.code, r.stderr).toBe(1);
    }, 60_000);
  });

  describe('nerdr next and notifications (an attached client)', () => {
    let bellWin = '';

    it('a blocked transition in a window no client shows sets its bell flag', async () => {
      await attachClient();
      bellWin = await demo('bell', '--ask');
      await env.tmuxOk('select-window', '-t', '=user:0');
      expect(await clientWindow()).not.toBe(bellWin);
      const m = rec.mark(bellWin);
      await env.tmuxOk('send-keys', '-t', bellWin, '-l', 'ring');
      await env.tmuxOk('send-keys', '-t', bellWin, 'Enter');
      await rec.reached(bellWin, 'blocked', m);
      await waitFor(async () => (await env.tmuxOk('display', '-p', '-t', bellWin, '#{window_bell_flag}')).trim() === '1', { what: 'the bell flag on the blocked window' });
    });

    // tmux 3.3 prints #{allow-passthrough} as "1"/"0" (≥ 3.4: on/off/all); both must count.
    it('with allow-passthrough on, the client\'s terminal receives OSC 9 and OSC 777', async () => {
      expect(bellWin).not.toBe('');
      if (tmuxAtLeast(3, 3)) expect((await env.tmuxOk('display', '-p', '-t', '=user:0', '#{allow-passthrough}')).trim()).toMatch(/^(1|on)$/);
      await waitFor(() => readFileSync(clientLog, 'latin1').includes('\x1b]9;'), { timeoutMs: 8000, what: 'OSC 9 in the client terminal output' });
      const log = readFileSync(clientLog, 'utf8');
      expect(log).toMatch(/\x1b\]9;nerdr: bell: demo needs you/);
      expect(log).toContain('\x1b]777;notify;nerdr: bell;demo needs you');
    });

    it('next: oldest blocked, else oldest unseen done; with nothing pending it says so', async () => {
      await attachClient();
      // leave only our own: every earlier window settles and is seen
      const blockedWin = (await env.lsJson()).find((a) => a.name === 'bell')!.window;
      const doneWin = await demo('finisher');
      let m = rec.mark(doneWin);
      await env.tmuxOk('send-keys', '-t', doneWin, '-l', 'quick');
      await env.tmuxOk('send-keys', '-t', doneWin, 'Enter');
      await rec.reached(doneWin, 'done', m, 30_000);
      // other dones from earlier tests: view them so that only `finisher` is done
      for (const a of await env.lsJson()) {
        if (a.state !== 'done' || a.window === doneWin) continue;
        await env.tmuxOk('select-window', '-t', a.window);
        await waitFor(async () => (await row(a.window)).state !== 'done', { what: `${a.name} seen` });
      }
      await env.tmuxOk('select-window', '-t', '=user:0');
      expect((await row(blockedWin)).state).toBe('blocked');

      const n1 = await env.nerdr('next');
      expect(n1.code, n1.stderr).toBe(0);
      expect(n1.stdout).toContain('bell (blocked)');
      expect(await clientWindow()).toBe(blockedWin);

      // answer it while shown: its done is seen at once; next goes to the done one
      m = rec.mark(blockedWin);
      await env.tmuxOk('send-keys', '-t', blockedWin, '1');
      await rec.reached(blockedWin, 'working', m);
      await waitFor(async () => (await row(blockedWin)).state === 'idle', { timeoutMs: 30_000, what: 'bell finished and seen' });
      const n2 = await env.nerdr('next');
      expect(n2.code, n2.stderr).toBe(0);
      expect(n2.stdout).toContain('finisher (done)');
      expect(await clientWindow()).toBe(doneWin);
      await waitFor(async () => (await row(doneWin)).state === 'idle', { what: 'finisher seen' });

      const n3 = await env.nerdr('next');
      expect(n3.code, n3.stderr).toBe(0);
      expect(n3.stdout).toMatch(/nothing needs you/);
      expect(await clientWindow()).toBe(doneWin);
    }, 90_000);
  });
  /** `nerdr -L <server> …args` with these bytes on stdin (the harness's input is a string). */
  function nerdrBytes(args: string[], input: Buffer): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [NERDR_BIN, '-L', env.server, ...args], { env: env.env, stdio: ['pipe', 'pipe', 'pipe'] });
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

  const queuesDir = (): string => path.join(env.stateDir, 'queues');
  const coreLog = (): string =>
    readdirSync(env.stateDir)
      .filter((f) => f.startsWith('core'))
      .map((f) => readFileSync(path.join(env.stateDir, f), 'utf8'))
      .join('');
  const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  /** Like settle(), from `nerdr ls` (the recorder does not follow a restarted supervisor). */
  async function settled(win: string): Promise<void> {
    await waitFor(
      async () => {
        const r = await row(win);
        if (r.state === 'blocked') await env.tmuxOk('send-keys', '-t', win, '1');
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
      const stop = await env.nerdr('supervisor', 'stop');
      expect(stop.code, stop.stderr).toBe(0);
      mkdirSync(queuesDir(), { recursive: true });
      const broken = '{"messages":[{"id":"x1","text":"the message a crash cut short","queuedAt":1900000000000}';
      writeFileSync(path.join(queuesDir(), `${id}.json`), broken);
      // the next command starts a new supervisor, which finds the window and its queue file
      expect((await env.lsJson()).some((a) => a.window === win)).toBe(true);
      const aside = await waitFor(() => readdirSync(queuesDir()).find((f) => f.startsWith(`${id}.broken-`)), {
        what: `the broken queue kept as ${id}.broken-… (have ${readdirSync(queuesDir()).join(', ')})`,
      });
      expect(readFileSync(path.join(queuesDir(), aside), 'utf8')).toBe(broken);
      expect(coreLog()).toMatch(new RegExp(`warn durable: the message queue .*${escapeRe(id)}\\.json is not JSON .*kept as .*${escapeRe(aside)}`));
      const r = await env.nerdr('send', win, 'after the crash');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^nerdr: warning: the message queue .* is not JSON .*its messages were not delivered; it is kept as /);
      expect(r.stdout).toMatch(/queued for .* as #1/);
      await waitFor(async () => (await read(win)).includes('> after the crash'), { timeoutMs: 20_000, what: 'the new message typed' });
      expect(readFileSync(path.join(queuesDir(), aside), 'utf8')).toBe(broken);
      // told once
      await settled(win);
      expect((await row(win)).queue).toBe(0);
      const again = await env.nerdr('send', win, 'and once more');
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
        const r = await env.nerdr('send', win, 'never typed');
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(new RegExp(`^nerdr: the message was not queued: cannot write ${escapeRe(path.join(queuesDir(), `${id}.json`))}: (EEXIST|ENOTDIR)`));
        expect(r.stderr).toMatch(/\n {2}fix: .*is not a folder: move that file away, then send again/);
        expect((await row(win)).queue).toBe(0);
        expect(await read(win)).not.toContain('never typed');
      } finally {
        rmSync(queuesDir(), { force: true });
      }
      const ok = await env.nerdr('send', win, 'the folder is back');
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
      const r = await run('sh', ['-c', `exec "$0" "$1" -L "$2" send "$3" "ok $(printf 'caf\\351')"`, process.execPath, NERDR_BIN, env.server, win], { env: env.env });
      await refused(r, /argument .* cannot be typed in exactly: it is not valid UTF-8: the bytes at byte offset 6 \(0xe9…\)/);
    });

    it('a client other than the CLI gets invalid_message for a NUL or a lone surrogate', async () => {
      const pid = (await env.tmuxOk('display', '-p', '-t', win, '#{pane_pid}')).trim();
      const sock = processEnv(pid).NERDR_SOCKET!;
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
      // JSON.stringify writes a lone surrogate as \ud800, as another client might
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
