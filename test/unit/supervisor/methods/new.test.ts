import { afterEach, describe, expect, it } from 'vitest';
import { newWindow } from '../../../../src/supervisor/methods/new.js';
import { startRig, type Rig } from '../harness.js';
import { hashSecret } from '../../../../src/supervisor/create.js';
import { call, CONFIG_FILE, hostOf } from './call.js';
import { BOSS_SECRET, family, WORKING } from './screens.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.new', () => {
  it('creates the window, watches it before it answers, and records an agent caller as its parent', async () => {
    rig = await startRig(family);
    const r = await call(newWindow, hostOf(rig), { session: 'user', argv: ['demo', '--fast'], agent: 'demo', name: 'api', cwd: '/src/api', note: 'hi', caller: BOSS_SECRET, callerEnv: { FOO: 'bar' } });
    expect(r).toMatchObject({ window: '@4', pane: '%4', agent: 'demo' });
    const a = rig.sup.agents.get('%4')!;
    expect(a).toMatchObject({ name: 'api', cwd: '/src/api', id: r.id, note: 'hi' });
    expect(rig.tmux.pane('%4').argv).toEqual(['demo', '--fast']);
    expect(rig.tmux.pane('%4').env.FOO).toBe('bar');
    expect(rig.tmux.pane('%4').options.get('@nerdr_lineage')).toBe('boss');
  });

  it('no program, a folder that is not absolute, a broken worktree or quiet wait: invalid_params, and no window', async () => {
    rig = await startRig();
    const host = hostOf(rig);
    const ok = { session: 'user', argv: ['demo'] };
    await expect(call(newWindow, host, { ...ok, argv: [] })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.new: argv must name a program' });
    await expect(call(newWindow, host, { ...ok, cwd: 'src' })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.new: cwd must be an absolute path' });
    await expect(call(newWindow, host, { ...ok, worktree: { path: '/w', branch: '', base: 'main' } })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.new: worktree.branch must not be empty' });
    await expect(call(newWindow, host, { ...ok, idleAfterMs: 2.5 })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.new: idleAfterMs must be a whole number of milliseconds (0: off)' });
    await expect(call(newWindow, host, { argv: ['demo'] })).rejects.toMatchObject({
      code: 'invalid_params',
      message: 'nerdr.new: session is missing: expected a string',
      fix: expect.stringContaining('{session, argv, agent?, name?, cwd?,'),
    });
    expect(rig.tmux.sent('new-window')).toEqual([]);
  });
});

describe('nerdr.new: [agents] max_helpers and max_depth', () => {
  const start = (caller?: string, name = 'h') => ({ session: 'user', argv: ['demo'], name, ...(caller ? { caller } : {}) });

  /** boss started helper (family); helper's secret is given here, and "deep" sits below helper. */
  function chain(t: Parameters<typeof family>[0]): void {
    family(t);
    t.addPane({ name: 'mid', id: 'mid', secretHash: hashSecret('mid-secret'), options: new Map([['@nerdr_lineage', 'boss']]), screen: WORKING });
    t.addPane({ name: 'deep', id: 'deep', secretHash: hashSecret('deep-secret'), options: new Map([['@nerdr_lineage', 'mid boss']]), screen: WORKING });
  }

  it('an agent window with max_helpers windows below it is refused, naming the setting; a person never is', async () => {
    rig = await startRig(chain);
    // boss has helper, mid and deep below it
    const host = hostOf(rig, 'own', { max_helpers: 4 });
    await expect(call(newWindow, host, start(BOSS_SECRET, 'fourth'))).resolves.toMatchObject({ agent: 'unknown' });
    const before = rig.tmux.sent('new-window').length;
    await expect(call(newWindow, host, start(BOSS_SECRET, 'fifth'))).rejects.toMatchObject({
      code: 'not_permitted',
      message: 'boss (@1) has 4 helper windows running (those it started and theirs), and [agents] max_helpers is 4',
      fix: `stop a helper that is done (\`nerdr stop NAME\`) or hand this to one that runs, or raise [agents] max_helpers in ${CONFIG_FILE}`,
    });
    // a helper's helper counts for boss above it too
    await expect(call(newWindow, host, start('mid-secret'))).rejects.toMatchObject({ code: 'not_permitted', message: expect.stringMatching(/^boss \(@1\), above it, has 4 helper windows/) });
    expect(rig.tmux.sent('new-window').length).toBe(before);
    await expect(call(newWindow, host, start(undefined, 'persons'))).resolves.toMatchObject({ agent: 'unknown' });
  });

  it('helpers asked for at once count before tmux has made them', async () => {
    rig = await startRig(chain);
    const host = hostOf(rig, 'own', { max_helpers: 5 });
    const all = await Promise.allSettled([1, 2, 3, 4].map((i) => call(newWindow, host, start(BOSS_SECRET, `loop${i}`))));
    expect(all.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
    expect(rig.tmux.sent('new-window').length).toBe(2);
  });

  it('a helper deeper than max_depth is refused, naming the setting; [agents] control = "all" does not lift it', async () => {
    rig = await startRig(chain);
    // deep is 2 below a person's: its helper would be 3 deep
    await expect(call(newWindow, hostOf(rig, 'all', { max_depth: 2 }), start('deep-secret'))).rejects.toMatchObject({
      code: 'not_permitted',
      message: 'deep (@5) is an agent window 2 below a person\'s: a helper it starts would be 3 deep, and [agents] max_depth is 2',
      fix: `do the work in this window or hand it to a helper above it, or raise [agents] max_depth in ${CONFIG_FILE}`,
    });
    await expect(call(newWindow, hostOf(rig, 'own', { max_depth: 2 }), start('mid-secret'))).resolves.toMatchObject({ agent: 'unknown' });
    await expect(call(newWindow, hostOf(rig), start('deep-secret'))).resolves.toMatchObject({ agent: 'unknown' });
    const made = [...rig.sup.agents.values()].filter((a) => a.lineage[0] === 'deep');
    expect(made.map((a) => a.lineage)).toEqual([['deep', 'mid', 'boss']]);
  });
});
