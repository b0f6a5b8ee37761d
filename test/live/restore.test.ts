// `nerdr restore` end to end, with fake agents: scripts named claude, codex and opencode first on
// PATH that append their argv (one JSON line) to a log and then wait, or exit at once with
// "No conversation found" when resumed with an id listed in $FAKE_BAD_IDS. Agents are started
// with `nerdr new`, the tmux server is killed, and `nerdr restore` must bring every window back
// at its index, with its name and folder and the right resume flags; a failed resume becomes a
// fresh start with a note; a corrupt saved file is kept aside while the other sessions restore.
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionBase, type SavedSession } from '../../src/store/sessions.js';
import { spawn } from 'node:child_process';
import { NERDR_BIN, pidAlive, startLiveEnv, tmuxAvailable, waitFor, type AgentRowLike, type LiveEnv } from './helpers/env.js';

const FAKE = `#!${process.execPath}
const fs = require('node:fs');
const path = require('node:path');
const name = path.basename(process.argv[1]);
const args = process.argv.slice(2);
if (name === 'codex' && args[0] === 'app-server') {
  // just enough JSON-RPC for nerdr's trust check: no hooks known
  let buf = '';
  process.stdin.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\\n')) >= 0) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (typeof m.id === 'number') process.stdout.write(JSON.stringify({ id: m.id, result: m.method === 'hooks/list' ? { data: [] } : {} }) + '\\n');
    }
  });
  process.stdin.on('end', () => process.exit(0));
  return;
}
fs.appendFileSync(process.env.FAKE_AGENT_LOG, JSON.stringify({ agent: name, args, cwd: process.cwd(), pid: process.pid }) + '\\n');
const bad = (process.env.FAKE_BAD_IDS || '').split(',').filter(Boolean);
const hit = bad.find((b) => args.includes(b) || args.includes('--resume=' + b));
if (hit) {
  process.stdout.write('No conversation found with session ID: ' + hit + '\\n');
  // FAKE_STAY: says so and stays, so only the screen tells (the check waits its whole grace)
  if (!process.env.FAKE_STAY) process.exit(1);
  setInterval(() => {}, 1 << 30);
  return;
}
// a fake claude looks busy ("esc to interrupt"), so a queued message stays queued
process.stdout.write(name + ' (fake) ready in ' + process.cwd() + (name === 'claude' ? '\\n\\n  esc to interrupt' : '\\n> '));
setInterval(() => {}, 1 << 30);
`;

interface Launch {
  agent: string;
  args: string[];
  cwd: string;
  pid: number;
}

describe.skipIf(!tmuxAvailable)('nerdr restore after the tmux server is gone', () => {
  let env: LiveEnv;
  let root: string;
  let log: string;
  const dirs: Record<string, string> = {};
  let before: AgentRowLike[] = [];

  const launches = (): Launch[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Launch)
      : [];

  async function newAgent(...args: string[]): Promise<string> {
    const r = await env.nerdr('new', '-d', ...args);
    expect(r.code, `nerdr new ${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout.trim();
  }

  beforeAll(async () => {
    const base = await import('node:os').then((os) => os.tmpdir());
    root = path.join(base, `nerdr-restore-${process.pid}-${Date.now().toString(36)}`);
    const bin = path.join(root, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const name of ['claude', 'codex', 'opencode']) {
      writeFileSync(path.join(bin, name), FAKE);
      chmodSync(path.join(bin, name), 0o755);
    }
    for (const d of ['p1', 'p2', 'p3']) {
      dirs[d] = path.join(root, d);
      mkdirSync(dirs[d]!, { recursive: true });
    }
    log = path.join(root, 'launches.jsonl');
    appendFileSync(log, '');
    env = await startLiveEnv({ env: { PATH: `${bin}:${process.env.PATH ?? ''}`, FAKE_AGENT_LOG: log } });
    await env.tmuxOk('new-session', '-d', '-s', 'side', '-c', dirs.p3!);
  });

  afterAll(async () => {
    await env?.cleanup();
    if (root) (await import('node:fs')).rmSync(root, { recursive: true, force: true });
  });

  it('saves the agent windows of each session', async () => {
    await newAgent('-t', 'user', '--name', 'alpha', '--cwd', dirs.p1!, 'claude', '--', '--model', 'opus');
    await newAgent('-t', 'user', '--name', 'beta', '--cwd', dirs.p2!, 'claude');
    await newAgent('-t', 'user', '--name', 'gamma', '--cwd', dirs.p3!, 'codex', '--', '-m', 'o3');
    await newAgent('-t', 'user', '--name', 'delta', '--cwd', dirs.p2!, 'opencode');
    await newAgent('-t', 'user', '--name', 'epsilon', '--cwd', dirs.p2!, 'opencode');
    await newAgent('-t', 'side', '--name', 'zeta', '--cwd', dirs.p3!, 'claude');
    before = await waitFor(async () => {
      const rows = await env.lsJson();
      return rows.length === 6 && rows.every((r) => r.windowIndex !== null) && rows;
    }, { what: 'six agents in nerdr ls' });
    await waitFor(() => launches().length === 6, { what: 'six fake launches' });
    const q = await env.nerdr('send', 'alpha', 'hello after the reboot');
    expect(q.code, q.stderr).toBe(0);
    await waitFor(async () => (await env.lsJson()).find((r) => r.name === 'alpha')?.queue === 1, { what: 'a queued message for alpha' });
    before = await env.lsJson();
    // claude is started with --session-id: its id is known from the launch
    const alpha = before.find((r) => r.name === 'alpha')!;
    expect(alpha.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(launches().find((l) => l.cwd === dirs.p1)!.args).toContain(alpha.conversationId);

    const sessionsDir = path.join(env.stateDir, 'sessions');
    const savedFile = (session: string) => path.join(sessionsDir, `${sessionBase(env.socketPath, session)}.json`);
    const saved = await waitFor(() => {
      try {
        const s = JSON.parse(readFileSync(savedFile('user'), 'utf8')) as SavedSession;
        const z = JSON.parse(readFileSync(savedFile('side'), 'utf8')) as SavedSession;
        return s.windows.length === 5 && z.windows.length === 1 && s.windows.some((w) => w.queue.length === 1) && s;
      } catch {
        return false;
      }
    }, { what: 'the supervisor to save both sessions', timeoutMs: 10000 });
    expect(saved).toBeTruthy();
  });

  it('kill-server, then restore: every window back at its index with its name, folder and resume flags', async () => {
    const sup = await env.supervisorPid();
    await env.tmux('kill-server');
    if (sup) await waitFor(() => !pidAlive(sup), { what: 'the supervisor to exit with its server' });
    const sessionsDir = path.join(env.stateDir, 'sessions');
    // the supervisor must not have emptied the saved sessions while the server went away
    const s = JSON.parse(readFileSync(path.join(sessionsDir, `${sessionBase(env.socketPath, 'user')}.json`), 'utf8')) as SavedSession;
    expect(s.windows).toHaveLength(5);
    // an agent that is not installed here (no copilot on PATH): its window waits for it
    const sideFile = path.join(sessionsDir, `${sessionBase(env.socketPath, 'side')}.json`);
    const side = JSON.parse(readFileSync(sideFile, 'utf8')) as SavedSession;
    side.windows.push({ agent: 'copilot', name: 'eta', index: 3, cwd: dirs.p1!, args: ['--model', 'gpt-x'], argv: [], conversationId: 'c0ffee00-2222-4333-8444-555555555555', conversationFrom: 'hook', queue: [] });
    writeFileSync(sideFile, JSON.stringify(side));
    // a corrupt file for another session: kept aside, the rest restores
    const ghost = path.join(sessionsDir, `${sessionBase(env.socketPath, 'ghost')}.json`);
    writeFileSync(ghost, '{"version":1,"server":');

    const beta = before.find((r) => r.name === 'beta')!;
    const alpha = before.find((r) => r.name === 'alpha')!;
    const zeta = before.find((r) => r.name === 'zeta')!;
    const launchedBefore = launches().length;

    // --dry-run starts nothing: no server, no agent
    const dry = await env.nerdrWith(['restore', '--dry-run'], { env: { FAKE_BAD_IDS: beta.conversationId as string } });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('session user (will be created)');
    // the corrupt file is found (and kept aside) already here
    expect(dry.stderr).toMatch(/broken-.*\.json/);
    expect(dry.stdout).toContain(`--resume ${alpha.conversationId}`);
    expect((await env.tmux('list-sessions')).code).not.toBe(0);
    expect(launches()).toHaveLength(launchedBefore);

    const r = await env.nerdrWith(['restore', '--json'], { env: { FAKE_BAD_IDS: beta.conversationId as string }, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(ghost)).toBe(false);
    expect(readdirSync(sessionsDir).some((n) => n.startsWith(`${sessionBase(env.socketPath, 'ghost')}.broken-`))).toBe(true);
    const out = JSON.parse(r.stdout) as { windows: { name: string; action: string; resumeFailed: string | null; installed: boolean; argv: string[] }[] };
    expect(out.windows.map((w) => [w.name, w.action]).sort()).toEqual(
      ['alpha', 'beta', 'delta', 'epsilon', 'eta', 'gamma', 'zeta'].map((n) => [n, 'created']),
    );
    const eta = out.windows.find((w) => w.name === 'eta')!;
    expect(eta.installed).toBe(false);
    expect(eta.argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(eta.argv).toEqual(expect.arrayContaining(['copilot', '--resume=c0ffee00-2222-4333-8444-555555555555', '--model', 'gpt-x']));
    await waitFor(async () => {
      const t = await env.nerdr('read', 'eta');
      return t.code === 0 && /copilot is not installed/.test(t.stdout);
    }, { what: 'the missing-agent message in eta' });
    expect((await env.tmuxOk('display', '-p', '-t', '=side:3', '#{window_name}')).trim()).toBe('eta');
    expect(out.windows.find((w) => w.name === 'beta')!.resumeFailed).toMatch(/No conversation found/);

    const after = await waitFor(async () => {
      const rows = await env.lsJson();
      return rows.length === 7 && rows;
    }, { what: 'seven restored agents' });
    for (const b of before) {
      const a = after.find((x) => x.name === b.name);
      expect(a, b.name).toBeDefined();
      expect([a!.session, a!.windowIndex, a!.cwd, a!.agent]).toEqual([b.session, b.windowIndex, b.cwd, b.agent]);
    }
    // the session's placeholder window is gone: only the agents are in it
    const idx = (await env.tmuxOk('list-windows', '-t', '=user', '-F', '#{window_index} #{window_name}')).trim().split('\n');
    expect(idx.sort()).toEqual(before.filter((b) => b.session === 'user').map((b) => `${b.windowIndex} ${b.name}`).sort());

    const since = launches().slice(launchedBefore);
    const by = (cwd: string, agent: string) => since.filter((l) => l.cwd === cwd && l.agent === agent);
    // claude: the launch id, the user's --model kept, no second --session-id
    const a = by(dirs.p1!, 'claude');
    expect(a).toHaveLength(1);
    expect(a[0]!.args).toEqual(expect.arrayContaining(['--resume', alpha.conversationId as string, '--model', 'opus']));
    expect(a[0]!.args).not.toContain('--session-id');
    expect(by(dirs.p3!, 'claude')[0]!.args).toEqual(expect.arrayContaining(['--resume', zeta.conversationId as string]));
    // codex without an id: resume --last in its folder, -m kept
    const g = by(dirs.p3!, 'codex');
    expect(g).toHaveLength(1);
    expect(g[0]!.args[0]).toBe('resume');
    expect(g[0]!.args).toEqual(expect.arrayContaining(['--last', '-m', 'o3']));
    // two opencode windows share p2: neither guesses
    const o = by(dirs.p2!, 'opencode');
    expect(o).toHaveLength(2);
    for (const l of o) expect(l.args.filter((x) => ['--continue', '-c', '--session', '-s'].includes(x))).toEqual([]);
    const delta = after.find((x) => x.name === 'delta')!;
    expect(delta.note).toMatch(/new conversation.*share/);
    // beta: the resume exited at once → respawned fresh in the same window, with a note
    const b = by(dirs.p2!, 'claude');
    expect(b.map((l) => l.args.includes('--resume'))).toEqual([true, false]);
    expect(b[1]!.args).toContain('--session-id');
    const betaRow = after.find((x) => x.name === 'beta')!;
    expect(betaRow.note).toMatch(new RegExp(`resume of ${beta.conversationId} failed .*started a new conversation`));
    await waitFor(async () => (await env.lsJson()).find((x) => x.name === 'beta')?.state !== 'exited', { what: 'beta running again after the respawn' });
    expect(betaRow.conversationId).not.toBe(beta.conversationId);
    // the queued message is queued again
    expect(after.find((x) => x.name === 'alpha')!.queue).toBe(1);
  }, 90_000);

  it('a second restore is a no-op: every window is already there', async () => {
    const n = launches().length;
    const r = await env.nerdrWith(['restore', '--json'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { windows: { action: string }[] };
    expect(out.windows.map((w) => w.action)).toEqual(Array(7).fill('skipped'));
    expect(launches()).toHaveLength(n);
    expect(await env.lsJson()).toHaveLength(7);
  }, 60_000);

  it('a Ctrl-C of restore during the resume checks stops only its printing: the supervisor still replaces the failed resume', async () => {
    const bad = '77777777-2222-4333-8444-555555555555';
    const file = path.join(root, 'ctrlc.json');
    const saved: SavedSession = {
      version: 1,
      server: env.socketPath,
      session: 'ctrlc',
      savedAt: new Date().toISOString(),
      windows: [{ agent: 'claude', name: 'interrupted', index: 1, cwd: dirs.p1!, args: [], argv: [], conversationId: bad, conversationFrom: 'hook', queue: [] }],
    };
    writeFileSync(file, JSON.stringify(saved));
    const child = spawn(process.execPath, [NERDR_BIN, '-L', env.server, 'restore', '--from', file], {
      env: { ...env.env, FAKE_BAD_IDS: bad, FAKE_STAY: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    env.track(child.pid!);
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    // the window is made and its agent says the conversation is not there: the check is under way
    await waitFor(async () => (await env.lsJson()).find((r) => r.name === 'interrupted'), { what: 'the restored window' });
    await waitFor(() => launches().some((l) => l.args.includes(bad)), { what: 'the resume launch' });
    child.kill('SIGINT');
    await exited;
    const row = await waitFor(async () => {
      const r = (await env.lsJson()).find((x) => x.name === 'interrupted');
      return r && typeof r.note === 'string' && /failed/.test(r.note) && r;
    }, { what: 'the failed resume to be replaced', timeoutMs: 15_000 });
    expect(row.note).toMatch(new RegExp(`resume of ${bad} failed \\("No conversation found with session ID: ${bad}"\\): started a new conversation`));
    expect(row.conversationId).not.toBe(bad);
    // the new program logs its launch a moment after the window's note changed
    const fresh = await waitFor(() => launches().find((l) => l.cwd === dirs.p1 && l.args.includes(row.conversationId as string)), { what: 'the fresh launch' });
    expect(fresh.args).not.toContain(bad);
  }, 60_000);
});
