// What `nerdr restore` plans per saved window: resume flags per agent, which id wins, the
// shared-folder rule, stripping old resume flags, idempotence.
import { describe, expect, it } from 'vitest';
import { bestId, idFromArgs, planRestore, stripResumeArgs, type PlanContext } from '../../src/store/restore-plan.js';
import type { SavedSession, SavedWindow } from '../../src/store/sessions.js';

const ID = '11111111-2222-4333-8444-555555555555';
const ID2 = '99999999-2222-4333-8444-555555555555';

function win(over: Partial<SavedWindow> = {}): SavedWindow {
  return { agent: 'claude', name: 'w', index: 1, cwd: '/p', args: [], argv: [], conversationId: null, conversationFrom: null, queue: [], ...over };
}
function sess(windows: SavedWindow[], session = 'work'): SavedSession {
  return { version: 1, server: '/tmp/tmux-1/default', session, savedAt: '2030-01-01T00:00:00.000Z', windows };
}
const EMPTY: PlanContext = { live: [], occupied: {}, sessions: [] };

function one(w: SavedWindow, ctx: PlanContext = EMPTY) {
  return planRestore([sess([w])], ctx)[0]!.windows[0]!;
}

describe('resume arguments per agent', () => {
  it.each([
    ['claude', ['--resume', ID]],
    ['codex', ['resume', ID]],
    ['opencode', ['--session', ID]],
    ['copilot', [`--resume=${ID}`]],
    ['gemini', ['--resume', ID]],
    ['agy', ['--conversation', ID]],
    ['grok', ['--resume', ID]],
  ])('%s with an id', (agent, flags) => {
    const p = one(win({ agent, conversationId: ID, conversationFrom: 'hook', args: ['--model', 'm1'] }));
    expect(p.action).toBe('create');
    expect(p.resume).toBe('id');
    expect(p.args).toEqual([...flags, '--model', 'm1']);
    expect(p.freshArgs).toEqual(['--model', 'm1']);
    expect(p.note).toBe('');
  });

  it.each([
    ['opencode', ['--continue']],
    ['copilot', ['--continue']],
    ['codex', ['resume', '--last']],
  ])('%s without an id takes the newest conversation of the folder', (agent, flags) => {
    const p = one(win({ agent, args: ['-m', 'x'] }));
    expect(p.resume).toBe('continue');
    expect(p.args).toEqual([...flags, '-m', 'x']);
    expect(p.conversationFrom).toBe('guess');
    expect(p.note).toMatch(/newest/);
  });

  it("pi and omp resume a reported session file (herdr's table: pi --session V, omp --resume=V)", () => {
    const file = '/home/u/.pi/agent/sessions/--p--/2026-12-01T10-00-00-000Z_0b7c.jsonl';
    const p = one(win({ agent: 'pi', conversationId: file, conversationFrom: 'report', args: ['--session', '/old.jsonl', '--model', 'm1'] }));
    expect(p).toMatchObject({ action: 'create', resume: 'id', conversationId: file });
    expect(p.args).toEqual(['--session', file, '--model', 'm1']);
    const o = one(win({ agent: 'omp', conversationId: '/home/u/.omp/agent/sessions/a.jsonl', conversationFrom: 'report', args: ['--resume=/old.jsonl'] }));
    expect(o.args).toEqual(['--resume=/home/u/.omp/agent/sessions/a.jsonl']);
    expect(idFromArgs('pi', ['--session', '/s.jsonl'])).toBe('/s.jsonl');
  });

  it('claude and others without an id start fresh, saying why', () => {
    for (const agent of ['claude', 'gemini', 'grok']) {
      const p = one(win({ agent, args: ['--permission-mode', 'plan'] }));
      expect(p.resume).toBe('fresh');
      expect(p.args).toEqual(['--permission-mode', 'plan']);
      expect(p.note).toMatch(/no conversation id saved/);
    }
  });

  it('an id that looks like a flag is never resumed', () => {
    const p = one(win({ conversationId: '--dangerously-skip-permissions', conversationFrom: 'report' }));
    expect(p.resume).toBe('fresh');
    expect(p.args).not.toContain('--dangerously-skip-permissions');
  });
});

describe('which id wins', () => {
  it('reported/hook beats launch beats guess', () => {
    expect(bestId(win({ conversationId: ID, conversationFrom: 'hook', args: ['--session-id', ID2] }))).toEqual({ id: ID, from: 'hook' });
    expect(bestId(win({ conversationId: ID, conversationFrom: 'report', args: ['--session-id', ID2] }))).toEqual({ id: ID, from: 'report' });
    // a launch id from the saved arguments beats a guessed one
    expect(bestId(win({ conversationId: ID, conversationFrom: 'guess', args: ['--session-id', ID2] }))).toEqual({ id: ID2, from: 'launch' });
    expect(bestId(win({ conversationId: ID, conversationFrom: 'guess' }))).toEqual({ id: ID, from: 'guess' });
    expect(bestId(win({ conversationId: ID, conversationFrom: null }))).toEqual({ id: ID, from: 'launch' });
    expect(bestId(win())).toBeNull();
  });

  it('the plan resumes the winner and marks a guess', () => {
    const p = one(win({ conversationId: ID, conversationFrom: 'guess', args: ['--session-id', ID2] }));
    expect(p.args).toEqual(['--resume', ID2]);
    expect(p.conversationFrom).toBe('launch');
    const g = one(win({ agent: 'opencode', conversationId: ID, conversationFrom: 'guess' }));
    expect(g.args).toEqual(['--session', ID]);
    expect(g.conversationFrom).toBe('guess');
    expect(g.note).toMatch(/a guess/);
  });

  it('ids in the saved arguments, per agent', () => {
    expect(idFromArgs('claude', ['--resume', ID])).toBe(ID);
    expect(idFromArgs('claude', ['--session-id', ID, '--resume', ID2])).toBe(ID);
    expect(idFromArgs('claude', ['--continue'])).toBeNull();
    expect(idFromArgs('copilot', [`--resume=${ID}`])).toBe(ID);
    expect(idFromArgs('codex', ['resume', '-m', 'o3', ID])).toBe(ID);
    expect(idFromArgs('codex', ['resume', '--last'])).toBeNull();
    expect(idFromArgs('codex', [ID])).toBeNull(); // a prompt, not an id
    expect(idFromArgs('opencode', ['-s', ID])).toBe(ID);
  });

  it('one conversation is resumed once: a second window with the same id starts fresh', () => {
    const plan = planRestore([sess([win({ index: 1, conversationId: ID, conversationFrom: 'hook' }), win({ index: 2, conversationId: ID, conversationFrom: 'hook' })])], EMPTY)[0]!;
    expect(plan.windows.map((w) => w.resume)).toEqual(['id', 'fresh']);
    expect(plan.windows[1]!.note).toMatch(/resumed by another window/);
  });
});

describe('the shared-folder rule', () => {
  it('never guesses when two saved windows of the agent share the folder', () => {
    const plan = planRestore([sess([win({ agent: 'codex', index: 1, cwd: '/a' }), win({ agent: 'codex', index: 2, cwd: '/a/' })])], EMPTY)[0]!;
    for (const w of plan.windows) {
      expect(w.resume).toBe('fresh');
      expect(w.args).toEqual([]);
      expect(w.note).toMatch(/1 other codex window shares \/a/);
    }
  });

  it('counts windows of other saved sessions and agents running now', () => {
    const plans = planRestore([sess([win({ agent: 'opencode', cwd: '/a' })], 's1'), sess([win({ agent: 'opencode', cwd: '/a' })], 's2')], EMPTY);
    expect(plans.map((p) => p.windows[0]!.resume)).toEqual(['fresh', 'fresh']);
    const live = one(win({ agent: 'copilot', cwd: '/b' }), { ...EMPTY, live: [{ session: 'x', index: 0, agent: 'copilot', cwd: '/b', conversationId: null, exited: false }] });
    expect(live.resume).toBe('fresh');
  });

  it('other agents in the folder do not count, and ids are still used when the folder is shared', () => {
    const plan = planRestore(
      [sess([win({ agent: 'codex', index: 1, cwd: '/a' }), win({ agent: 'claude', index: 2, cwd: '/a' }), win({ agent: 'opencode', index: 3, cwd: '/c', conversationId: ID, conversationFrom: 'hook' }), win({ agent: 'opencode', index: 4, cwd: '/c' })])],
      EMPTY,
    )[0]!;
    expect(plan.windows.map((w) => w.resume)).toEqual(['continue', 'fresh', 'id', 'fresh']);
  });
});

describe('stripping earlier resume flags', () => {
  it.each([
    ['claude', ['--resume', ID, '--model', 'opus', '--session-id', ID2, '-c', '--fork-session', '--permission-mode', 'plan'], ['--model', 'opus', '--permission-mode', 'plan']],
    ['claude', ['-r', '--model', 'opus'], ['--model', 'opus']], // picker form: no value
    ['claude', ['--resume=abc', '--continue'], []],
    ['codex', ['resume', ID, '-m', 'o3', '--last', '--all'], ['-m', 'o3']],
    ['codex', ['resume', '-c', 'model="o3"', '--last'], ['-c', 'model="o3"']],
    ['codex', ['fork', ID, '--full-auto'], ['--full-auto']],
    ['codex', ['-m', 'o3', '--full-auto'], ['-m', 'o3', '--full-auto']],
    ['opencode', ['--session', ID, '-c', '--model', 'x', '-s', ID2], ['--model', 'x']],
    ['copilot', [`--resume=${ID}`, '--continue', '--session-id', ID2, '--allow-all-tools'], ['--allow-all-tools']],
    ['gemini', ['--resume', 'latest', '-m', 'pro'], ['-m', 'pro']],
    ['unknown', ['--resume', 'x'], ['--resume', 'x']],
  ])('%s %j', (agent, args, out) => {
    expect(stripResumeArgs(agent, args)).toEqual(out);
  });

  it('never doubles a resume flag in the plan', () => {
    const p = one(win({ args: ['--resume', ID2, '--model', 'opus'], conversationId: ID, conversationFrom: 'hook' }));
    expect(p.args).toEqual(['--resume', ID, '--model', 'opus']);
    const c = one(win({ agent: 'codex', args: ['resume', '--last', '-m', 'o3'] }));
    expect(c.args).toEqual(['resume', '--last', '-m', 'o3']);
  });
});

describe('idempotence and places', () => {
  it('skips a window already there (same session, index, agent, folder)', () => {
    const ctx: PlanContext = { live: [{ session: 'work', index: 1, agent: 'claude', cwd: '/p', conversationId: null, exited: false }], occupied: { work: [0, 1] }, sessions: ['work'] };
    const plan = planRestore([sess([win({ index: 1 }), win({ index: 2, cwd: '/q' })])], ctx)[0]!;
    expect(plan.create).toBe(false);
    expect(plan.windows.map((w) => [w.index, w.action])).toEqual([[1, 'skip'], [2, 'create']]);
  });

  it('skips a conversation that runs in another window already', () => {
    const ctx: PlanContext = { live: [{ session: 'other', index: 5, agent: 'claude', cwd: '/p', conversationId: ID, exited: false }], occupied: {}, sessions: ['other'] };
    expect(one(win({ conversationId: ID, conversationFrom: 'launch' }), ctx).action).toBe('skip');
  });

  it('an index taken by another window: the next free one, and the why says so', () => {
    const ctx: PlanContext = { live: [], occupied: { work: [1] }, sessions: ['work'] };
    const p = one(win({ index: 1, conversationId: ID, conversationFrom: 'hook' }), ctx);
    expect(p.index).toBeNull();
    expect(p.why).toMatch(/index 1 is taken/);
  });

  it('windows come in index order; a missing session is to be created', () => {
    const plan = planRestore([sess([win({ index: 4 }), win({ index: 0 }), win({ index: 2 })])], EMPTY)[0]!;
    expect(plan.create).toBe(true);
    expect(plan.windows.map((w) => w.index)).toEqual([0, 2, 4]);
  });
});

describe('what restore does at run time', () => {
  it('recognises "conversation not found" screens per agent, not ordinary text', async () => {
    const { notFoundOnScreen } = await import('../../src/supervisor/restore.js');
    expect(notFoundOnScreen('claude', `x\nNo conversation found with session ID: ${ID}\n`)).toBe(`No conversation found with session ID: ${ID}`);
    expect(notFoundOnScreen('opencode', 'Error: Session not found\n')).toBe('Error: Session not found');
    expect(notFoundOnScreen('codex', 'Error: No saved session found with ID abc\n')).toMatch(/No saved session/);
    expect(notFoundOnScreen('claude', '> run ls\nbash: foo: command not found\n')).toBeNull();
  });

  it('a missing agent: the window says so and waits; the argv is data, never shell text', async () => {
    const { missingArgv } = await import('../../src/supervisor/restore.js');
    const { spawnSync } = await import('node:child_process');
    const hostile = ['no-such-agent-xyz', '--resume', `$(touch /tmp/pwned-${process.pid}); 'x"`];
    const argv = missingArgv('claude', hostile);
    expect(argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(argv[2]).not.toContain('no-such-agent-xyz');
    const r = spawnSync(argv[0]!, argv.slice(1), { input: '', encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    expect(r.stdout).toMatch(/nerdr: claude is not installed \(no "no-such-agent-xyz" on PATH\); install it and press Enter to retry/);
    expect(r.status).toBe(1); // stdin closed: gives up instead of looping
    // once the program is there, it runs with the argv as given
    const ok = spawnSync('/bin/sh', ['-c', argv[2]!, 'nerdr-restore', 'claude', 'printf', '%s|', 'a b', '$HOME'], { input: '', encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    expect(ok.stdout).toBe('a b|$HOME|');
  });
});

describe('a --cmd window', () => {
  it('says its saved command runs again, not "a unknown conversation"', () => {
    const p = one(win({ agent: 'unknown', argv: ['/bin/sh', '-c', 'make watch'], args: [], conversationId: null, conversationFrom: null }));
    expect(p.action).toBe('create');
    expect(p.why).toBe('its saved command runs again');
    expect(p.why).not.toMatch(/a unknown/);
  });
});
