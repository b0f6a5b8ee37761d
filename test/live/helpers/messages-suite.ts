// The shared setup of the live messages tests (messages-*.test.ts): one private tmux server per
// file, a recorder of the supervisor's event stream, and the helpers they use. Split in files so
// that the messages tests run side by side (vitest.config.ts); each file makes its own windows.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { paneEnv, startLiveEnv, tmuxAtLeast, waitFor, type AgentRowLike, type LiveEnv } from './env.js';
import { Recorder } from './recorder.js';

export interface MessagesSuite {
  env: LiveEnv;
  rec: Recorder;
  client: ChildProcess | null;
  clientLog: string;
  newWindow(...args: string[]): Promise<string>;
  row(win: string): Promise<AgentRowLike>;
  read(win: string): Promise<string>;
  send(win: string, message: string): Promise<void>;
  settle(win: string): Promise<void>;
  demo(name: string, ...flags: string[]): Promise<string>;
  attachClient(): Promise<void>;
  clientWindow(): Promise<string>;
}

/** Registers the file's beforeAll/afterAll (call it inside the file's describe) and returns the suite. */
export function messagesSuite(): MessagesSuite {
  const s = { rec: new Recorder(), client: null, clientLog: '' } as unknown as MessagesSuite;
  const rec = s.rec;

  s.newWindow = async function newWindow(...args: string[]): Promise<string> {
    const r = await s.env.nerdr('new', '-d', ...args);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  }

  s.row = async function row(win: string): Promise<AgentRowLike> {
    const r = (await s.env.lsJson()).find((a) => a.window === win);
    if (!r) throw new Error(`${win} not in ls`);
    return r;
  }

  s.read = async function read(win: string): Promise<string> {
    const r = await s.env.nerdr('read', win);
    if (r.code !== 0) throw new Error(`nerdr read: ${r.stderr}`);
    return r.stdout;
  }

  s.send = async function send(win: string, message: string): Promise<void> {
    const r = await s.env.nerdrWith(['send', win], { input: message });
    expect(r.code, r.stderr).toBe(0);
  }

  /** The demo settles: idle or done; a dialog on the way is answered with 1. */
  s.settle = async function settle(win: string): Promise<void> {
    await waitFor(
      async () => {
        const state = rec.last(win)?.state;
        if (state === 'blocked') await s.env.tmuxOk('send-keys', '-t', win, '1');
        return state === 'idle' || state === 'done';
      },
      { timeoutMs: 30_000, intervalMs: 200, what: `${win} to settle` },
    );
  }

  s.demo = async function demo(name: string, ...flags: string[]): Promise<string> {
    const win = await s.newWindow('demo', '--name', name, '--', '--auto', '0', '--work', '1', ...flags);
    if (rec.rows.size === 0) {
      // read once the pane's program runs: a forked tmux not yet exec'd has no NERDR_SOCKET (CI saw it)
      await rec.start((await paneEnv(s.env, win)).NERDR_SOCKET!);
    }
    await waitFor(async () => ['idle', 'done'].includes((await s.row(win)).state), { timeoutMs: 20_000, what: `${name} idle` });
    return win;
  }

  s.attachClient = async function attachClient(): Promise<void> {
    if (s.client) return;
    s.clientLog = path.join(s.env.home, 's.client.log');
    // stdin stays an open pipe: at EOF on its stdin `script` types ^D into the s.client, which tmux
    // hands to the active pane (the session's shell, which exits)
    s.client = spawn('script', ['-qfc', `tmux -L ${s.env.server} attach -t user`, s.clientLog], { env: s.env.env, stdio: ['pipe', 'ignore', 'ignore'] });
    s.env.track(s.client.pid!);
    await waitFor(async () => (await s.env.tmuxOk('list-clients', '-F', '#{client_control_mode}')).split('\n').includes('0'), { what: 'the attached s.client' });
  }

  s.clientWindow = async function clientWindow(): Promise<string> {
    const lines = (await s.env.tmuxOk('list-clients', '-F', '#{client_control_mode} #{window_id}')).split('\n');
    return lines.find((l) => l.startsWith('0 '))!.slice(2);
  }

  beforeAll(async () => {
    s.env = await startLiveEnv();
    // tmux 3.3 added allow-passthrough (off by default); 3.2 always passes DCS passthrough on
    if (tmuxAtLeast(3, 3)) await s.env.tmuxOk('set-option', '-gw', 'allow-passthrough', 'on');
  }, 60_000);

  afterAll(async () => {
    if (process.env.NERDR_LIVE_DEBUG) {
      const fs = await import('node:fs');
      for (const f of fs.readdirSync(s.env.stateDir)) if (f.startsWith('core')) console.log(fs.readFileSync(path.join(s.env.stateDir, f), 'utf8').slice(-6000));
    }
    rec.stop();
    if (s.client?.pid) s.client.kill('SIGKILL');
    await s.env?.cleanup();
  });
  return s;
}
