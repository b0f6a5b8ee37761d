import { describe, expect, it } from 'vitest';
import { findAgent, follow, targetKey, targetLook, type ReviewAgent } from '../../../src/review/follow.js';
import type { ActiveWindow } from '../../../src/supervisor/active.js';

const agent = (over: Partial<ReviewAgent>): ReviewAgent => ({ id: 'i', name: 'a', agent: 'claude', state: 'idle', window: '@1', pane: '%1', cwd: '/repo', ...over });
const active = (over: Partial<ActiveWindow>): ActiveWindow => ({
  session: '$1',
  sessionName: 'work',
  window: '@1',
  windowName: 'a',
  pane: '%1',
  paneCwd: '/pane',
  worktree: null,
  branch: null,
  base: null,
  ...over,
});

const AGENTS = [agent({}), agent({ id: 'j', name: 'fix', window: '@2', pane: '%2', cwd: '/repo', worktree: '/repo.worktrees/fix', branch: 'fix', base: 'main' })];

describe('follow', () => {
  it("reviews the agent of the window the panel's session shows, in its folder", () => {
    const t = follow({ session: '$1', active: [active({ session: '$0', window: '@2' }), active({})], agents: AGENTS, previous: null })!;
    expect(t.window).toBe('@1');
    expect(t.agent?.name).toBe('a');
    expect(t.folder).toBe('/repo');
  });
  it("switches with the session's window, to the worktree of an agent that has one", () => {
    const t = follow({ session: '$1', active: [active({ window: '@2', windowName: 'fix' })], agents: AGENTS, previous: null })!;
    expect(t).toMatchObject({ window: '@2', folder: '/repo.worktrees/fix', worktree: '/repo.worktrees/fix', branch: 'fix', base: 'main' });
  });
  it("takes the worktree from the window's options when the agent row has none", () => {
    const t = follow({ session: '$1', active: [active({ worktree: '/wt', branch: 'b', base: 'main' })], agents: [agent({})], previous: null })!;
    expect(t).toMatchObject({ folder: '/wt', branch: 'b', base: 'main' });
  });
  it("reviews a window without an agent by its active pane's folder", () => {
    const t = follow({ session: '$1', active: [active({ window: '@9', pane: '%9', paneCwd: '/elsewhere' })], agents: AGENTS, previous: null })!;
    expect(t).toMatchObject({ window: '@9', agent: null, folder: '/elsewhere' });
  });
  it("keeps the previous target while the panel's own window (without an agent) shows", () => {
    const prev = follow({ session: '$1', active: [active({})], agents: AGENTS, previous: null });
    const t = follow({ session: '$1', active: [active({ window: '@5', pane: '%5' })], agents: AGENTS, selfPane: '%5', previous: prev });
    expect(t).toBe(prev);
  });
  it('keeps the previous target while an editor window the panel opened shows', () => {
    const prev = follow({ session: '$1', active: [active({})], agents: AGENTS, previous: null });
    const t = follow({ session: '$1', active: [active({ window: '@8', pane: '%8' })], agents: AGENTS, ownWindows: new Set(['@8']), previous: prev });
    expect(t).toBe(prev);
  });
  it('keeps the previous target when its session is not in the list', () => {
    const prev = follow({ session: '$1', active: [active({})], agents: AGENTS, previous: null });
    expect(follow({ session: '$1', active: [], agents: AGENTS, previous: prev })).toBe(prev);
  });
  it('tells a change that needs a look-up from one that only redraws', () => {
    const a = follow({ session: '$1', active: [active({})], agents: AGENTS, previous: null });
    const b = follow({ session: '$1', active: [active({})], agents: [agent({ state: 'working' })], previous: null });
    expect(targetKey(a)).toBe(targetKey(b));
    expect(targetLook(a)).not.toBe(targetLook(b));
  });
});

describe('findAgent', () => {
  it('names an agent by pane, window, id or a unique name', () => {
    expect(findAgent(AGENTS, '%2')?.name).toBe('fix');
    expect(findAgent(AGENTS, '@1')?.name).toBe('a');
    expect(findAgent(AGENTS, 'fix')?.window).toBe('@2');
    expect(findAgent([...AGENTS, agent({ id: 'k', window: '@3', pane: '%3' })], 'a')).toBeNull();
    expect(findAgent(AGENTS, 'nope')).toBeNull();
  });
});
