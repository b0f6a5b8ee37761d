// Hibernation (src/supervisor/hibernate.ts, supervisor.ts hibernate/wake): who may hibernate,
// the screen kept, the process tree ended, the window's record, and waking — on the fake tmux
// and the fake clock.
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { HIBERNATED_SCRIPT, keptScreen, parseHibernation, processTree, treeRssKb, whyNotHibernate, type HibernateCandidate, type TreeProcess } from '../../../src/supervisor/hibernate.js';
import { HIBERNATE_TERM_MS } from '../../../src/supervisor/supervisor.js';
import { RpcError } from '../../../src/supervisor/socket/errors.js';
import { startRig, settle, type Rig } from './harness.js';

const ok: HibernateCandidate = { state: 'idle', dead: false, seen: null, queued: 0, conversationId: 'c-1', subagents: 0, backgroundTasks: 0, background: false, resumable: true };

describe('whyNotHibernate', () => {
  it('an idle agent, or one done and seen, with a conversation and nothing queued or running may', () => {
    expect(whyNotHibernate(ok)).toBeNull();
    expect(whyNotHibernate({ ...ok, state: 'done', seen: true })).toBeNull();
  });

  it('never one that works, waits for the user, finished unseen, or has work or messages pending', () => {
    expect(whyNotHibernate({ ...ok, state: 'working' })).toBe('it is working');
    expect(whyNotHibernate({ ...ok, state: 'blocked' })).toMatch(/waits for you/);
    expect(whyNotHibernate({ ...ok, state: 'done', seen: false })).toMatch(/not seen/);
    expect(whyNotHibernate({ ...ok, subagents: 2 })).toBe('2 subagents run');
    expect(whyNotHibernate({ ...ok, backgroundTasks: 1 })).toBe('1 background task runs');
    expect(whyNotHibernate({ ...ok, background: true })).toMatch(/background/);
    expect(whyNotHibernate({ ...ok, queued: 1 })).toBe('1 message is queued for it');
    expect(whyNotHibernate({ ...ok, conversationId: null })).toMatch(/conversation id is not known/);
    expect(whyNotHibernate({ ...ok, resumable: false })).toMatch(/cannot resume/);
    expect(whyNotHibernate({ ...ok, dead: true })).toMatch(/exited/);
    expect(whyNotHibernate({ ...ok, state: 'unknown' })).toMatch(/only an idle agent/);
    expect(whyNotHibernate({ ...ok, state: 'hibernated' })).toMatch(/already/);
  });
});

describe('the kept screen', () => {
  it('keeps text and colours; drops every other escape and control, and trailing blank rows', () => {
    const captured = 'one \x1b[1;31mred\x1b[0m\n\x1b]0;title\x07two\x1b[2Jx\x07\x1bc\n\x9b31mthree\n\x1b[0m  \n\n';
    // a C1 CSI goes; what followed it is text
    expect(keptScreen(captured)).toBe('one \x1b[1;31mred\x1b[0m\ntwox\n31mthree');
  });

  it('the tiny program takes the file and the name as parameters, never as script', () => {
    expect(HIBERNATED_SCRIPT).toContain('cat -- "$1"');
    expect(HIBERNATED_SCRIPT).toMatch(/nerdr wake %s.*" "\$2"/);
    expect(HIBERNATED_SCRIPT).toMatch(/exec sleep \d+$/);
  });

  it("the window's record: read back as written; anything else is no record", () => {
    expect(parseHibernation('{"since":5,"conversationId":"c","screen":"/s","rssKb":null}')).toEqual({ since: 5, conversationId: 'c', screen: '/s', rssKb: null });
    for (const bad of ['', 'x', '{}', '{"since":"5","conversationId":"c","screen":"/s"}', '{"since":5,"conversationId":"","screen":"/s"}']) expect(parseHibernation(bad)).toBeNull();
  });
});

describe('the process tree', () => {
  const all: TreeProcess[] = [
    { pid: 1, ppid: 0, session: 1, rssKb: 10 },
    { pid: 100, ppid: 1, session: 100, rssKb: 1000 }, // the pane's process, its session's leader
    { pid: 101, ppid: 100, session: 100, rssKb: 500 },
    { pid: 102, ppid: 101, session: 102, rssKb: 200 }, // a setsid'd child of a child
    { pid: 103, ppid: 1, session: 100, rssKb: 300 }, // double-forked away, still in the session
    { pid: 200, ppid: 1, session: 200, rssKb: 9999 }, // another window
  ];

  it("is the pane's process, its descendants and the rest of its session; nothing else", () => {
    expect(processTree(all, 100).map((p) => p.pid).sort()).toEqual([100, 101, 102, 103]);
    expect(treeRssKb(processTree(all, 100))).toBe(2000);
    expect(processTree(all, 999)).toEqual([]);
  });
});

// --- on the fake tmux --------------------------------------------------------------------------

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

/** A Claude window in conversation c-42, idle, whose tree is the pane's process and one child. */
async function claudeRig(over: { alive?: Set<number>; lifecycle?: { hibernateAfterMs: number | null; wakeOnFocus: boolean } } = {}) {
  const alive = over.alive ?? new Set([4001, 4002]);
  const signals: string[] = [];
  const r = await startRig((t) => void t.addPane({ agent: 'claude', name: 'api', args: ['--model', 'opus'], screen: ['╭──╮', '│ > │', '╰──╯', '  ? for shortcuts'] }), {
    processes: async () => [
      { pid: 4001, ppid: 1, session: 4001, rssKb: 600_000 },
      { pid: 4002, ppid: 4001, session: 4001, rssKb: 100_000 },
    ].filter((p) => alive.has(p.pid)),
    kill: (pid, sig) => {
      if (!alive.has(pid)) throw Object.assign(new Error('ESRCH'), { code: 'ESRCH' });
      if (sig === 0) return;
      signals.push(`${sig} ${pid}`);
    },
    lifecycle: over.lifecycle,
  });
  const a = r.sup.agents.get('%1')!;
  // what its SessionStart hook would report, and the idle screen's verdict
  r.sup.setConversation(a, 'c-42', 'launch');
  a.apply(a.arbiter.screen({ state: 'idle', visibleIdle: true, visibleBlocker: false, visibleWorking: false, skipStateUpdate: false, hash: 'h', prompt: null } as never));
  await r.wait(3500);
  return { r, a, alive, signals };
}

describe('hibernate and wake on the fake tmux', () => {
  it('a busy agent is refused with why, and nothing is done', async () => {
    const { r, a, signals } = await claudeRig();
    rig = r;
    r.sup.messages.enqueue(a, 'later');
    const err = await r.sup.hibernate(a).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).code).toBe('not_hibernatable');
    expect((err as RpcError).message).toMatch(/cannot hibernate now: 1 message is queued for it/);
    expect(signals).toEqual([]);
    expect(r.tmux.sent('respawn-pane')).toEqual([]);
  });

  it('hibernated: screen kept, state first, SIGTERM to the tree and SIGKILL to what outlives it, then the tiny program; ls says so', async () => {
    const { r, a, alive, signals } = await claudeRig();
    rig = r;
    if (a.state !== 'idle') throw new Error(`the test agent is ${a.state}, not idle`);
    const states: string[] = [];
    r.sup.on('change', (x) => void states.push(x.state));
    const going = r.sup.hibernate(a);
    await settle();
    expect(a.state).toBe('hibernated'); // before its program ends: no exited in between
    expect(signals).toEqual(['SIGTERM 4001', 'SIGTERM 4002']);
    alive.delete(4001); // the agent ends on SIGTERM; its child does not
    await r.wait(HIBERNATE_TERM_MS + 100);
    const h = await going;
    expect(signals).toEqual(['SIGTERM 4001', 'SIGTERM 4002', 'SIGKILL 4002']);
    expect(h).toMatchObject({ conversationId: 'c-42', rssKb: 700_000 });
    expect(readFileSync(h.screen, 'utf8')).toContain('? for shortcuts');
    const pane = r.tmux.pane('%1');
    expect(parseHibernation(pane.options.get('@nerdr_hibernated'))).toEqual(h);
    const [respawn] = r.tmux.sent('respawn-pane');
    expect(respawn).toEqual(expect.arrayContaining(['-k', '-t', '%1', '/bin/sh', h.screen, 'api']));
    expect(states).not.toContain('exited');
    const row = r.sup.agents.get('%1')!;
    expect(row.state).toBe('hibernated');
    // the tiny program dies (its pane is kept): still hibernated, nothing judged
    r.tmux.pane('%1').dead = true;
    await r.wait(300);
    expect(a.state).toBe('hibernated');
  });

  it('a message queued while it is being hibernated wakes it once it is stopped, never in the middle', async () => {
    const { r, a, alive } = await claudeRig();
    rig = r;
    const going = r.sup.hibernate(a);
    await settle();
    r.sup.messages.enqueue(a, 'just in time');
    const early = r.sup.wake(a, { why: 'test' }); // what nerdr send does meanwhile
    await r.wait(1000);
    expect(r.tmux.sent('respawn-pane')).toEqual([]); // nothing respawned while the tree still ends
    alive.clear();
    await r.wait(200);
    await going;
    let w: Awaited<typeof early> | null = null;
    void early.then((x) => (w = x));
    for (let i = 0; i < 100 && !w; i++) await r.wait(100);
    const respawns = r.tmux.sent('respawn-pane');
    expect(respawns).toHaveLength(2);
    expect(respawns[0]).toContain('/bin/sh'); // the tiny program first
    expect(respawns[1]).toEqual(expect.arrayContaining(['--resume', 'c-42'])); // then the agent, resumed
    expect(a.hibernation).toBeNull();
  });

  it('a supervisor started later finds it hibernated from the window alone', async () => {
    const { r, a } = await claudeRig({ alive: new Set() });
    rig = r;
    const h = await r.sup.hibernate(a);
    const stateDir = r.stateDir;
    const options = new Map(r.tmux.pane('%1').options);
    await r.sup.stop();
    rig = await startRig((t) => void t.addPane({ agent: 'claude', name: 'api', options }), { stateDir });
    const b = rig.sup.agents.get('%1')!;
    expect(b.state).toBe('hibernated');
    expect(b.hibernation).toEqual(h);
    await rig.wait(5000);
    expect(b.state).toBe('hibernated');
  });

  it('wakes in its conversation, with nerdr wiring, the record and the screen file gone; a second wake meanwhile is the same one', async () => {
    const { r, a } = await claudeRig({ alive: new Set() });
    rig = r;
    const h = await r.sup.hibernate(a);
    const first = r.sup.wake(a, { why: 'test' });
    const second = r.sup.wake(a, { why: 'test again' });
    expect(second).toBe(first);
    let w = null as Awaited<typeof first> | null; // set in a callback: not narrowed to null
    void first.then((x) => (w = x));
    for (let i = 0; i < 100 && !w; i++) await r.wait(100);
    if (!w) throw new Error('the wake did not end');
    expect(w).toMatchObject({ conversationId: 'c-42', resumeFailed: null });
    expect(w.argv).toEqual(expect.arrayContaining(['--resume', 'c-42', '--model', 'opus']));
    expect(existsSync(h.screen)).toBe(false);
    expect(r.tmux.pane('%1').options.has('@nerdr_hibernated')).toBe(false);
    expect(a.hibernation).toBeNull();
    expect(a.state).not.toBe('hibernated');
    const err = await r.sup.wake(a, { why: 'again' }).catch((e: unknown) => e);
    expect((err as RpcError).code).toBe('not_hibernated');
  });

  it('wake_on_focus: a client that selects the window later wakes it; one that showed it while it was hibernated does not', async () => {
    const { r, a } = await claudeRig({ alive: new Set(), lifecycle: { hibernateAfterMs: null, wakeOnFocus: true } });
    rig = r;
    // a person looks at it when it is hibernated: it stays hibernated
    r.tmux.clients.push({ name: 'user-client', control: false, windowId: '@1', focused: true, inMode: false });
    await r.sup.hibernate(a);
    r.channel().notify('session-window-changed', '$1 @1');
    await r.wait(3000);
    expect(a.state).toBe('hibernated');
    // away and back: it wakes, resumed in its conversation
    r.tmux.clients[r.tmux.clients.length - 1]!.windowId = '@99';
    r.channel().notify('session-window-changed', '$1 @99');
    await r.wait(500);
    r.tmux.clients[r.tmux.clients.length - 1]!.windowId = '@1';
    r.channel().notify('session-window-changed', '$1 @1');
    await r.wait(500);
    expect(a.hibernation).toBeNull();
    expect(r.tmux.pane('%1').argv).toEqual(expect.arrayContaining(['--resume', 'c-42']));
    await r.wait(6000);
  });

  it('hibernate_after: an idle agent is hibernated once it has waited that long, not before', async () => {
    const { r, a } = await claudeRig({ alive: new Set(), lifecycle: { hibernateAfterMs: 10_000, wakeOnFocus: false } });
    rig = r;
    await r.wait(4000);
    expect(a.state).toBe('idle');
    await r.wait(6000);
    expect(a.state).toBe('hibernated');
  });
});
