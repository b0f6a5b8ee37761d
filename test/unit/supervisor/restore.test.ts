// The supervisor's side of `nerdr restore` (src/supervisor/restore.ts) on a fake host and the
// fake clock: sessions and their placeholder window, the resume checks, fresh starts, missing
// agents and folders, queued messages. No tmux, no agents.
import { describe, expect, it } from 'vitest';
import { MISSING_SCRIPT, RESUME_GRACE_MS, restoreSessions, type RestoreAgent, type RestoreEnv, type RestoreHost, type WindowResult } from '../../../src/supervisor/restore.js';
import type { SavedSession, SavedWindow } from '../../../src/store/sessions.js';
import type { RespawnSpec, WindowSpec } from '../../../src/supervisor/window-spec.js';
import { FakeTime, words } from './harness.js';
import type { Hibernation } from '../../../src/supervisor/hibernate.js';

const ID = '11111111-2222-4333-8444-555555555555';

function win(over: Partial<SavedWindow> = {}): SavedWindow {
  return { agent: 'claude', name: 'w', index: 1, cwd: '/p', args: [], argv: [], conversationId: null, conversationFrom: null, queue: [], ...over };
}
function sess(windows: SavedWindow[], session = 'work'): SavedSession {
  return { version: 1, server: '/tmp/tmux-1/default', session, savedAt: '2030-01-01T00:00:00.000Z', windows };
}

interface FakeAgent extends RestoreAgent {
  paneId: string;
  generation: number;
  dead: boolean;
  screen: string;
  spec: WindowSpec;
  respawned: RespawnSpec[];
  queued: string[];
  hibernated?: Hibernation;
}

/** A host whose windows behave as `behave` says once created (exit at once, a screen). */
function fakeHost(sessions: string[], behave: (spec: WindowSpec, a: FakeAgent) => void = () => undefined) {
  const time = new FakeTime();
  const agents = new Map<string, FakeAgent>();
  const listeners = new Set<() => void>();
  const commands: string[] = [];
  let n = 0;
  const fail = new Set<string>();
  const host: RestoreHost<FakeAgent> = {
    clock: time,
    async run(cmd) {
      commands.push(cmd);
      if (cmd.startsWith('list-windows')) return sessions.map((s) => `${s}\t0`).join('\n');
      if (cmd.startsWith('list-sessions')) return sessions.join('\n');
      if (cmd.startsWith('new-session')) return '$9 @90 0';
      return '';
    },
    live: () => [],
    agent: (pane) => agents.get(pane),
    screen: async (a) => a.screen,
    async createWindow(spec) {
      if (fail.has(spec.name)) throw new Error(`tmux refused ${spec.name}`);
      const id = ++n;
      const a: FakeAgent = { paneId: `%${id}`, generation: 0, dead: false, screen: '', spec, respawned: [], queued: [] };
      agents.set(a.paneId, a);
      // the agent does what it does a moment later, as a real one would
      queueMicrotask(() => {
        behave(spec, a);
        for (const l of listeners) l();
      });
      return { window: `@${id}`, pane: a.paneId, id: `a${id}`, agent: spec.agent, watched: a as never };
    },
    async respawn(a, spec) {
      a.respawned.push(spec);
      a.generation++;
      a.dead = false;
    },
    // the Messenger's answer for an id it knows: here, any id starting with "old"
    requeue(a, m) {
      if (m.id.startsWith('old')) return 'it was typed in already';
      a.queued.push(m.text);
      return null;
    },
    onChange(fn) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
    async hibernated(a, h) {
      a.hibernated = h;
    },
  };
  const warnings: string[] = [];
  const env: RestoreEnv = {
    callerEnv: { PATH: '/bin' },
    home: '/home/u',
    plan: async (agent, args) => ({ argv: [agent, ...args], env: { HOOKS: '1' }, notes: [], wiring: 'flags' as never, files: [] }),
    onPath: (program) => program !== 'gemini',
    isDir: (p) => p !== '/gone',
    isFile: (p) => p.endsWith('.screen'),
    warn: (m) => void warnings.push(m),
  };
  return { host, env, time, agents, commands, fail, warnings };
}

/** Runs the restore to its end, advancing the fake clock past the resume checks. */
async function run(h: ReturnType<typeof fakeHost>, saved: SavedSession[]) {
  const seen: WindowResult[] = [];
  const p = restoreSessions(h.host, h.env, saved, (r) => void seen.push(r));
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 0));
    h.time.advance(RESUME_GRACE_MS / 4);
  }
  const out = await p;
  return { out, seen };
}

describe('restoreSessions', () => {
  it('makes a missing session; its first window moves out of the way of an agent at its index and goes once the agents are in', async () => {
    const h = fakeHost([]);
    const { out, seen } = await run(h, [sess([win({ index: 0, name: 'a', conversationId: ID, conversationFrom: 'hook' }), win({ index: 1, name: 'b' })])]);
    const sent = h.commands.map(words);
    expect(sent.find((c) => c[0] === 'new-session')).toEqual(['new-session', '-d', '-s', 'work', '-c', '/p', '-P', '-F', '#{session_id} #{window_id} #{window_index}']);
    expect(sent).toContainEqual(['move-window', '-d', '-s', '@90', '-t', '$9:2']);
    expect(sent[sent.length - 1]).toEqual(['kill-window', '-t', '@90']);
    expect(out.failures).toBe(0);
    expect(out.windows.map((r) => [r.name, r.action, r.index])).toEqual([['a', 'created', 0], ['b', 'created', 1]]);
    expect(seen).toHaveLength(2);
    const a = h.agents.get('%1')!;
    expect(a.spec).toMatchObject({ session: 'work', index: 0, argv: ['claude', '--resume', ID], env: { HOOKS: '1' }, callerEnv: { PATH: '/bin' }, conversation: { id: ID, from: 'launch' } });
  });

  it('a resume that fails at once ("not found", or an exit) becomes a new conversation in the same window; one that lives is left alone', async () => {
    const h = fakeHost(['work'], (spec, a) => {
      if (spec.name === 'nf') a.screen = `No conversation found with session ID: ${ID}\n`;
      if (spec.name === 'dies') {
        a.screen = 'boom: bad flag\n\nPane is dead (status 1, Wed Dec  2 03:00:00 2026)\n';
        a.dead = true;
      }
    });
    const saved = ['nf', 'dies', 'lives'].map((name, i) => win({ name, index: i + 1, conversationId: `${ID.slice(0, -1)}${i}`, conversationFrom: 'hook', args: ['--model', 'm'] }));
    const { out } = await run(h, [sess(saved)]);
    const [nf, dies, lives] = out.windows;
    expect(nf).toMatchObject({ resume: 'fresh', resumeFailed: `"No conversation found with session ID: ${ID}"` });
    expect(dies).toMatchObject({ resume: 'fresh', resumeFailed: 'it exited at once: "boom: bad flag"' });
    expect(lives).toMatchObject({ resume: 'id', resumeFailed: null });
    expect(h.agents.get('%1')!.respawned).toEqual([expect.objectContaining({ argv: ['claude', '--model', 'm'], note: expect.stringMatching(/failed .*: started a new conversation/) })]);
    expect(h.agents.get('%2')!.respawned).toHaveLength(1);
    expect(h.agents.get('%3')!.respawned).toHaveLength(0);
    // nothing was made: the session is there
    expect(h.commands.some((c) => c.startsWith('new-session'))).toBe(false);
  });

  it('a window saved hibernated comes back hibernated: its kept screen shown, no agent started, no resume checked; without its screen it resumes', async () => {
    const h = fakeHost(['work'], (_spec, a) => {
      a.dead = true; // what an agent started by mistake would look like at once
    });
    const asleep = { since: 5, screen: '/state/hibernated/a1.screen', rssKb: 700 };
    const saved = [
      win({ name: 'zz', index: 1, conversationId: ID, conversationFrom: 'hook', args: ['--model', 'm'], hibernated: asleep }),
      win({ name: 'lost', index: 2, conversationId: ID.replace(/1/g, '7'), conversationFrom: 'hook', hibernated: { ...asleep, screen: '/state/hibernated/gone' } }),
    ];
    const { out } = await run(h, [sess(saved)]);
    const [zz, lost] = out.windows;
    expect(zz).toMatchObject({ action: 'created', hibernated: true, conversationId: ID, resumeFailed: null });
    const a1 = h.agents.get('%1')!;
    expect(a1.spec.argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(a1.spec.argv.slice(-2)).toEqual([asleep.screen, 'zz']);
    expect(a1.hibernated).toEqual({ since: 5, conversationId: ID, screen: asleep.screen, rssKb: 700 });
    expect(a1.respawned).toEqual([]);
    // its screen file gone: resumed as any saved window (here it exits at once: a new conversation)
    expect(lost).toMatchObject({ action: 'created', resume: 'fresh' });
    expect(lost!.hibernated).toBeUndefined();
  });

  it('a missing agent waits in its window; a gone folder starts fresh at home; saved messages are queued again; one failure stops nothing', async () => {
    const h = fakeHost(['work']);
    h.fail.add('broken');
    const { out } = await run(h, [
      sess([
        win({ name: 'g', agent: 'gemini', index: 1, queue: [{ id: 'm1', text: 'first', queuedAt: 1 }, { id: 'm2', text: 'second', queuedAt: 2 }] }),
        win({ name: 'broken', index: 2 }),
        win({ name: 'moved', index: 3, cwd: '/gone', conversationId: ID, conversationFrom: 'hook' }),
      ]),
    ]);
    const [g, broken, moved] = out.windows;
    expect(g).toMatchObject({ action: 'created', installed: false, requeued: 2, note: expect.stringMatching(/gemini is not installed: the window waits for it/) });
    expect(h.agents.get('%1')!.spec.argv.slice(0, 3)).toEqual(['/bin/sh', '-c', MISSING_SCRIPT]);
    expect(h.agents.get('%1')!.queued).toEqual(['first', 'second']);
    expect(broken).toMatchObject({ action: 'failed', why: 'tmux refused broken' });
    expect(moved).toMatchObject({ action: 'created', cwd: '/home/u', resume: 'fresh', conversationId: null, note: 'the folder /gone is gone: started a new conversation in /home/u' });
    expect(out.failures).toBe(1);
  });

  it('a saved message the queue already knows (typed in, or queued elsewhere) is not queued again, and restore says so', async () => {
    const h = fakeHost(['work']);
    const { out } = await run(h, [sess([win({ name: 'q', queue: [{ id: 'old1', text: 'typed before the crash', queuedAt: 1 }, { id: 'm2', text: 'still waiting', queuedAt: 2 }] })])]);
    expect(out.windows[0]).toMatchObject({ action: 'created', requeued: 1 });
    expect(h.agents.get('%1')!.queued).toEqual(['still waiting']);
    expect(h.warnings).toEqual(['a saved message (old1) for q was not queued again: it was typed in already']);
  });

  it("a --cmd window runs its saved command again and keeps its quiet rule's wait", async () => {
    const h = fakeHost(['work']);
    await run(h, [sess([win({ agent: 'unknown', name: 'repl', argv: ['/bin/sh', '-c', 'myrepl'], idleAfterMs: 5000 }), win({ name: 'c', index: 2 })])]);
    expect(h.agents.get('%1')!.spec).toMatchObject({ agent: 'unknown', argv: ['/bin/sh', '-c', 'myrepl'], idleAfterMs: 5000 });
    expect(h.agents.get('%2')!.spec.idleAfterMs).toBeNull();
  });
});
