// Usage limits through the real CLI on a real tmux (docs/lifecycle.md): a window showing
// Codex's real screen at its usage limit (test/fixtures/screens/codex/captured-limited.txt, drawn
// by helpers/fake-agent.js as `codex` on PATH, started with `nerdr new codex`, its reset moved to
// under a minute and a half from now) is `limited` with that reset in `ls` (and --json),
// `explain`, `wait --until limited`, `events` and its light; a restarted supervisor keeps it; a
// reset that passes while no supervisor runs is handed out by the next one, which types
// "continue" (`[agents] on_limit = "resume"`) once, and does not read the old line as a new limit.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NERDR_BIN, REPO_ROOT, startLiveEnv, tmuxAvailable, waitFor, type AgentRowLike, type LiveEnv } from './helpers/env.js';

const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');
const CAPTURED = path.join(REPO_ROOT, 'test', 'fixtures', 'screens', 'codex', 'captured-limited.txt');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A time as Codex writes it (its local time; chrono's "%-I:%M %p", with "%b %-d<th>, %Y" on another day). */
function codexTime(t: number): string {
  const d = new Date(t);
  const now = new Date();
  const h = d.getHours() % 12 === 0 ? 12 : d.getHours() % 12;
  const time = `${h}:${String(d.getMinutes()).padStart(2, '0')} ${d.getHours() < 12 ? 'AM' : 'PM'}`;
  if (d.toDateString() === now.toDateString()) return time;
  const day = d.getDate();
  const th = day % 100 >= 11 && day % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[day % 10] ?? 'th';
  return `${MONTHS[d.getMonth()]} ${day}${th}, ${d.getFullYear()} ${time}`;
}

describe.skipIf(!tmuxAvailable)('usage limits: live', () => {
  let env: LiveEnv;
  let resetAt = 0;
  let screen = '';
  const input = (): string => path.join(env.home, 'lim-input.log');
  const pastes = (): string[] => (existsSync(input()) ? [...readFileSync(input(), 'utf8').matchAll(/\x1b\[200~([\s\S]*?)\x1b\[201~/g)].map((m) => m[1]!) : []);
  const row = async (): Promise<AgentRowLike | undefined> => (await env.lsJson()).find((a) => a.name === 'lim');
  const events: { type?: string; changed?: string[]; agent?: { name: string; state: string; limit?: { resetAt: number | null } | null } }[] = [];

  let bin = '';

  beforeAll(async () => {
    // PATH is fixed when the tmux server starts (panes inherit it): the fake as `codex` first
    bin = path.join(process.env.TMPDIR ?? '/tmp', `nerdr-limit-bin-${process.pid}-${Date.now()}`, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(FAKE, path.join(bin, 'codex'));
    env = await startLiveEnv({ env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } });
    mkdirSync(env.configDir, { recursive: true });
    writeFileSync(path.join(env.configDir, 'config.toml'), '[agents]\non_limit = "resume"\n');
    // the reset on a whole minute at least 20 s away (Codex shows minutes)
    resetAt = Math.ceil((Date.now() + 20_000) / 60_000) * 60_000;
    const captured = readFileSync(CAPTURED, 'utf8');
    const re = /(try again at )([^.\n]+?)(\.)/i;
    expect(captured, 'the captured screen names a reset').toMatch(re);
    screen = path.join(env.home, 'limited.txt');
    writeFileSync(screen, captured.replace(re, `$1${codexTime(resetAt)}$3`));
  }, 60_000);

  afterAll(async () => {
    await env?.cleanup();
    if (bin) rmSync(path.dirname(bin), { recursive: true, force: true });
  });

  it('limited with the reset the screen shows: ls, ls --json, explain, wait --until limited, events, the light', async () => {
    // another window first: its snapshot row says the stream is on
    expect((await env.nerdr('new', '-d', '--name', 'other', '--cmd', 'exec sleep 300')).code).toBe(0);
    const follower = spawn(process.execPath, [NERDR_BIN, '-L', env.server, 'events', '--json'], { env: env.env, stdio: ['ignore', 'pipe', 'ignore'] });
    env.track(follower.pid!);
    let buf = '';
    follower.stdout!.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        events.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
    });
    await waitFor(() => events.some((e) => (e as { name?: string }).name === 'other'), { what: 'the event stream' });

    // new panes take their environment from the tmux server's global one
    await env.tmuxOk('set-environment', '-g', 'FAKE_AGENT_SCREEN', screen);
    await env.tmuxOk('set-environment', '-g', 'FAKE_AGENT_INPUT_LOG', input());
    const made = await env.nerdrWith(['new', 'codex', '-d', '--name', 'lim'], { timeoutMs: 60_000 });
    expect(made.code, made.stderr).toBe(0);
    const r = await waitFor(async () => {
      const a = await row();
      return a?.state === 'limited' ? a : undefined;
    }, { timeoutMs: 25_000, what: 'lim limited' });
    expect(r.agent).toBe('codex');
    expect(r['limit']).toMatchObject({ resetAt, words: expect.stringMatching(/^You[’']ve hit your usage limit\./) });

    const ls = await env.nerdr('ls');
    expect(ls.stdout).toMatch(/lim\s+codex\s+limited \(resets \d\d:\d\d \(in \d+[sm]\)\)/);
    const explain = await env.nerdr('explain', 'lim');
    expect(explain.stdout).toMatch(/lim \(codex, @\d+ %\d+\): limited/);
    expect(explain.stdout).toMatch(/usage limit: "You[’']ve hit your usage limit\./);
    expect(explain.stdout).toContain(new Date(resetAt).toISOString());
    expect(explain.stdout).toMatch(/timer: limit-reset in/);
    const wait = await env.nerdr('wait', 'lim', '--until', 'limited', '--timeout', '5');
    expect(wait.code, wait.stderr).toBe(0);
    expect((await env.tmuxOk('show-options', '-w', '-v', '-t', r.window, '@nerdr_state')).trim()).toBe('limited');
    expect(await env.tmuxOk('show-options', '-w', '-v', '-t', r.window, '@nerdr_light')).toContain('◷');
    // the window's new line, or a change line, says limited with the reset
    await waitFor(() => events.some((e) => (e.type === 'new' || (e.type === 'change' && e.changed?.includes('state'))) && e.agent?.name === 'lim' && e.agent.state === 'limited' && e.agent.limit?.resetAt === resetAt), { what: 'limited in nerdr events' });
    expect(pastes()).toEqual([]);
  }, 60_000);

  it('a restarted supervisor keeps the reset, and does not read the same words as a new limit', async () => {
    const before = await env.supervisorPid();
    const restart = await env.nerdr('supervisor', 'restart');
    expect(restart.code, restart.stderr).toBe(0);
    await waitFor(async () => {
      const pid = await env.supervisorPid();
      return pid !== null && pid !== before;
    }, { what: 'a new supervisor' });
    const r = await waitFor(async () => {
      const a = await row();
      return a?.state === 'limited' ? a : undefined;
    }, { timeoutMs: 10_000, what: 'lim limited after the restart' }).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${JSON.stringify(await row())}\n${(await env.nerdr('explain', 'lim')).stdout}`);
    });
    expect((r['limit'] as { resetAt: number }).resetAt).toBe(resetAt);
  }, 30_000);

  it('no supervisor at the reset: the next one hands it out (on_limit = "resume" types "continue", once) and does not read the old line as tomorrow\'s limit', async () => {
    expect(Date.now()).toBeLessThan(resetAt);
    const stop = await env.nerdr('supervisor', 'stop');
    expect(stop.code, stop.stderr).toBe(0);
    expect(await env.supervisorPid()).toBeNull();
    // the reset passes while none runs ("7:29 PM" read again now would be tomorrow's)
    await waitFor(() => Date.now() >= resetAt + 1000, { timeoutMs: resetAt - Date.now() + 5000, intervalMs: 250, what: 'the reset to pass' });
    expect(pastes()).toEqual([]);
    // any command starts one: it takes the window's facts back
    const ls = await env.nerdr('ls', '--json');
    expect(ls.code, ls.stderr).toBe(0);
    await waitFor(() => pastes().length > 0, { timeoutMs: 20_000, what: '"continue" typed in by the next supervisor' });
    expect(pastes()).toEqual(['continue']);
    const a = await row();
    expect(a?.state).not.toBe('limited');
    expect(a?.['limit']).toBeNull();
  }, 120_000);
});
