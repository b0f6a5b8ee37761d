// Hibernate and wake through the real CLI on a real tmux (issue 28; docs/lifecycle.md). A fake
// `claude` wired by `nerdr new claude` (helpers/fake-agent.js drawing Claude's real idle screen),
// its conversation reported by its SessionStart hook as Claude runs it: `nerdr hibernate` ends its
// process and keeps its screen under a tiny program, `ls` says hibernated with the conversation, a
// supervisor restart keeps it, `nerdr send` wakes it resumed in that conversation and the message
// is typed once it is idle; `nerdr wake` does the same; a busy agent is refused.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, pidAlive, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { SHARED_FIXTURES } from '../shared-fixtures.js';
import { startWiredClaude, type WiredClaude } from './helpers/wired-claude.js';

const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');
const IDLE = path.join(SHARED_FIXTURES, 'screens', 'claude', '01-startup-idle.ansi.txt');

function hook(w: WiredClaude, env: LiveEnv, payload: Record<string, unknown>): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', w.command], { env: { PATH: env.env.PATH, HOME: env.env.HOME, ...w.env }, stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin.end(JSON.stringify(payload));
    child.on('error', reject);
    child.on('close', resolve);
  });
}

describe.skipIf(!tmuxAvailable)('hibernate and wake, live', () => {
  let env: LiveEnv;
  let root = '';
  let argvLog = '';
  let inputLog = '';

  beforeAll(async () => {
    root = path.join(process.env.TMPDIR ?? '/tmp', `nerdr-hibernate-${process.pid}-${Date.now()}`);
    mkdirSync(path.join(root, 'bin'), { recursive: true });
    symlinkSync(FAKE, path.join(root, 'bin', 'claude'));
    argvLog = path.join(root, 'argv.log');
    inputLog = path.join(root, 'typed.log');
    writeFileSync(inputLog, '');
    env = await startLiveEnv({
      env: { PATH: `${path.join(root, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`, FAKE_AGENT_SCREEN: IDLE, FAKE_AGENT_ARGV_LOG: argvLog, FAKE_AGENT_INPUT_LOG: inputLog },
    });
  }, 60_000);

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const row = async (name: string) => (await env.lsJson()).find((r) => r.name === name);
  const panePid = async (win: string): Promise<number> => Number((await env.tmuxOk('display', '-p', '-t', win, '#{pane_pid}')).trim());
  const starts = (): string[][] => (existsSync(argvLog) ? readFileSync(argvLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]) : []);

  it('hibernate: the process ends, the screen stays, ls says hibernated; a restart keeps it; a message wakes it in its conversation and is typed', async () => {
    const w = await startWiredClaude(env, 'sleepy');
    const sid = '0badc0de-0001-4222-8333-444455556666';
    expect(await hook(w, env, { hook_event_name: 'SessionStart', session_id: sid, source: 'startup' })).toBe(0);
    await waitFor(async () => {
      const r = await row('sleepy');
      return r?.state === 'idle' && r.conversationId === sid;
    }, { timeoutMs: 30_000, what: 'sleepy idle in its conversation' });
    const agentPid = await panePid(w.win);
    const before = (await env.tmuxOk('capture-pane', '-p', '-t', w.win)).trim().split('\n')[0]!;

    const h = await env.nerdrWith(['hibernate', 'sleepy'], { timeoutMs: 30_000 });
    expect(h.code, h.stderr).toBe(0);
    expect(h.stdout).toMatch(new RegExp(`^hibernated sleepy \\(@\\d+\\) in conversation ${sid}: \\d+ MB freed; wake it with nerdr wake @\\d+, or send it a message\\n$`));
    const r = (await row('sleepy'))!;
    expect(r.state).toBe('hibernated');
    expect(r.conversationId).toBe(sid);
    expect(r.hibernated?.rssKb).toBeGreaterThan(10_000);
    const why = await env.nerdr('explain', 'sleepy');
    expect(why.stdout).toMatch(new RegExp(`^sleepy \\(claude, @\\d+ %\\d+\\): hibernated for \\d+s\\n  hibernated by nerdr \\d+s ago in conversation ${sid}, freeing \\d+ MB: \`nerdr wake sleepy\`, or a message, resumes it`));
    // the agent's process is gone; the pane runs the tiny program, showing the kept screen
    await waitFor(() => !pidAlive(agentPid), { what: 'the agent process to end' });
    await waitFor(async () => (await env.tmuxOk('display', '-p', '-t', w.win, '#{pane_current_command}')).trim() === 'sleep', { what: 'the tiny program' });
    const shown = await env.tmuxOk('capture-pane', '-p', '-t', w.win);
    expect(shown).toContain(before.trim());
    expect(shown).toMatch(/hibernated by nerdr: nerdr wake sleepy, or send it a message/);
    // its own light: z, in the hibernated colour
    await waitFor(async () => /fg=blue\]z#/.test(await env.tmuxOk('show-options', '-wqv', '-t', w.win, '@nerdr_light')), { what: 'the hibernated light' });

    // a supervisor restart: still hibernated, from the window alone
    expect((await env.nerdr('supervisor', 'stop')).code).toBe(0);
    expect((await row('sleepy'))?.state).toBe('hibernated');

    // a message wakes it, resumed in its conversation; the message goes in once it is idle
    const n = starts().length;
    const s = await env.nerdr('send', 'sleepy', 'after the nap');
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/it was hibernated and wakes now/);
    await waitFor(() => starts().length > n, { timeoutMs: 20_000, what: 'the agent started again' });
    const argv = starts()[n]!;
    expect(argv.slice(argv.indexOf('--resume'), argv.indexOf('--resume') + 2)).toEqual(['--resume', sid]);
    await waitFor(() => readFileSync(inputLog, 'utf8').includes('after the nap'), { timeoutMs: 30_000, what: 'the message typed into the woken agent' });
    const woke = (await row('sleepy'))!;
    expect(woke.state).not.toBe('hibernated');
    expect(woke.hibernated ?? null).toBeNull();
  }, 120_000);

  it('nerdr wake resumes it; an agent that cannot resume, a busy one, one done unseen are refused with why, exit 1', async () => {
    // Claude is launched with its conversation id (--session-id): known from the start
    const nap = await startWiredClaude(env, 'napper');
    await waitFor(async () => (await row('napper'))?.state === 'idle', { timeoutMs: 30_000, what: 'napper idle' });
    const conversation = (await row('napper'))!.conversationId!;
    expect(conversation).toMatch(/^[0-9a-f-]{36}$/);
    expect((await env.nerdr('hibernate', 'napper')).code).toBe(0);
    const n = starts().length;
    const wake = await env.nerdrWith(['wake', 'napper', '--json'], { timeoutMs: 30_000 });
    expect(wake.code, wake.stderr).toBe(0);
    expect(JSON.parse(wake.stdout)).toMatchObject({ name: 'napper', conversationId: conversation, resumeFailed: null });
    const argv = starts()[n]!;
    expect(argv.slice(argv.indexOf('--resume'), argv.indexOf('--resume') + 2)).toEqual(['--resume', conversation]);
    await waitFor(async () => (await row('napper'))?.state === 'idle', { timeoutMs: 30_000, what: 'napper idle again' });
    expect(nap.win).toBe((await row('napper'))!.window);

    const demo = await env.nerdr('new', 'demo', '-d', '--name', 'demo', '--', '--auto', '0');
    expect(demo.code, demo.stderr).toBe(0);
    await waitFor(async () => ['idle', 'done'].includes((await row('demo'))?.state ?? ''), { timeoutMs: 30_000, what: 'demo idle' });
    const no = await env.nerdr('hibernate', 'demo');
    expect(no.code).toBe(1);
    expect(no.stderr).toMatch(/cannot hibernate now: its agent cannot resume a conversation by id/);

    const w = await startWiredClaude(env, 'fresh');
    await waitFor(async () => (await row('fresh'))?.state === 'idle', { timeoutMs: 30_000, what: 'fresh idle' });
    const sid = '0badc0de-0002-4222-8333-444455556666';
    await hook(w, env, { hook_event_name: 'SessionStart', session_id: sid, source: 'startup' });
    await hook(w, env, { hook_event_name: 'UserPromptSubmit', session_id: sid, prompt: 'go' });
    await waitFor(async () => (await row('fresh'))?.state === 'working', { what: 'fresh working' });
    const busy = await env.nerdr('hibernate', 'fresh');
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/cannot hibernate now: it is working/);
    expect(busy.stderr).toMatch(/\n {2}fix: /);
    await hook(w, env, { hook_event_name: 'Stop', session_id: sid });
    await waitFor(async () => (await row('fresh'))?.state === 'done', { what: 'fresh done' });
    const unseen = await env.nerdr('hibernate', 'fresh');
    expect(unseen.code).toBe(1);
    expect(unseen.stderr).toMatch(/finished a turn you have not seen yet/);
    const notAsleep = await env.nerdr('wake', 'fresh');
    expect(notAsleep.code).toBe(1);
    expect(notAsleep.stderr).toMatch(/is not hibernated \(it is done\)/);
  }, 120_000);

  it('tmux kill-server, then nerdr restore: back hibernated showing its kept screen, no agent started; nerdr wake resumes it', async () => {
    const w = await startWiredClaude(env, 'survivor');
    await waitFor(async () => (await row('survivor'))?.state === 'idle', { timeoutMs: 30_000, what: 'survivor idle' });
    const conversation = (await row('survivor'))!.conversationId!;
    expect((await env.nerdr('hibernate', 'survivor')).code).toBe(0);
    const sessions = path.join(env.stateDir, 'sessions');
    const savedHibernated = (): boolean =>
      readdirSync(sessions).filter((f) => f.endsWith('.json')).some((f) => {
        try {
          return (JSON.parse(readFileSync(path.join(sessions, f), 'utf8')) as { windows: { name: string; hibernated?: unknown }[] }).windows.some((x) => x.name === 'survivor' && x.hibernated);
        } catch {
          return false;
        }
      });
    await waitFor(savedHibernated, { what: 'the session saved with survivor hibernated' });
    const sup = await env.supervisorPid();
    await env.tmux('kill-server');
    if (sup) await waitFor(() => !pidAlive(sup), { what: 'the supervisor to exit with its server' });

    const n = starts().length;
    const r = await env.nerdrWith(['restore', '--json'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { windows: { name: string; action: string; hibernated?: boolean; conversationId: string | null }[] };
    expect(out.windows.find((x) => x.name === 'survivor')).toMatchObject({ action: 'created', hibernated: true, conversationId: conversation });
    const back = await waitFor(async () => {
      const x = await row('survivor');
      return x?.state === 'hibernated' ? x : undefined;
    }, { what: 'survivor back hibernated' });
    expect(back.conversationId).toBe(conversation);
    expect(await env.tmuxOk('capture-pane', '-p', '-t', back.window)).toMatch(/hibernated by nerdr: nerdr wake survivor/);
    // no agent was started for it
    expect(starts().slice(n).some((a) => a.includes(conversation))).toBe(false);
    const wake = await env.nerdrWith(['wake', 'survivor'], { timeoutMs: 30_000 });
    expect(wake.code, wake.stderr).toBe(0);
    expect(wake.stdout).toMatch(new RegExp(`^woke survivor \\(@\\d+\\) in conversation ${conversation}\\n$`));
    // the windows restored beside it resumed their own conversations: this one resumed its own
    const argv = starts().slice(n).find((a) => a.includes(conversation))!;
    expect(argv.slice(argv.indexOf('--resume'), argv.indexOf('--resume') + 2)).toEqual(['--resume', conversation]);
    expect(w.name).toBe('survivor');
  }, 120_000);
});
