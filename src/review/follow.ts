// Which window the panel reviews, from what the supervisor streams: the window its session shows
// (or the one it was pinned to), that window's agent if it has one, and the folder to look at:
// the worktree, else the agent's folder, else the folder of the window's active pane. Pure.

import type { ActiveWindow } from '../supervisor/active.js';

/** The fields of a `nerdr.ls` row the panel uses; worktree, branch and base may be absent (older supervisor). */
export interface ReviewAgent {
  id: string;
  name: string;
  agent: string;
  state: string;
  window: string;
  pane: string;
  cwd: string;
  conversationId?: string | null;
  session?: string;
  sessions?: string[];
  worktree?: string | null;
  branch?: string | null;
  base?: string | null;
}

export interface ReviewTarget {
  window: string;
  windowName: string;
  /** The session whose window this is ($3), or '' when pinned to an agent. */
  session: string;
  agent: ReviewAgent | null;
  folder: string;
  worktree: string | null;
  branch: string | null;
  base: string | null;
}

export interface FollowInput {
  /** The session the panel runs in ($3). */
  session: string;
  active: readonly ActiveWindow[];
  agents: readonly ReviewAgent[];
  /** The panel's own pane (%9): its window, when it has no agent, keeps the previous target. */
  selfPane?: string | null;
  /** Windows the panel opened itself (its editors): showing one keeps the previous target too. */
  ownWindows?: ReadonlySet<string>;
  previous: ReviewTarget | null;
}

/** An agent named by name, window id, pane id or nerdr id; null when none or several match. */
export function findAgent(agents: readonly ReviewAgent[], target: string): ReviewAgent | null {
  const byId = agents.filter((a) => a.pane === target || a.window === target || a.id === target);
  if (byId.length === 1) return byId[0]!;
  const byName = agents.filter((a) => a.name === target);
  return byName.length === 1 ? byName[0]! : null;
}

export function agentTarget(a: ReviewAgent, windowName = a.name, session = ''): ReviewTarget {
  return {
    window: a.window,
    windowName,
    session,
    agent: a,
    folder: a.worktree || a.cwd,
    worktree: a.worktree ?? null,
    branch: a.branch ?? null,
    base: a.base ?? null,
  };
}

/** The target for the session's current window; the previous one while the panel's own window (or an editor it opened) shows. */
export function follow(input: FollowInput): ReviewTarget | null {
  const w = input.active.find((x) => x.session === input.session);
  if (!w) return input.previous;
  const agent = input.agents.find((a) => a.window === w.window) ?? null;
  if (agent) {
    const t = agentTarget(agent, w.windowName, w.session);
    // the window's own options, when the supervisor's row does not carry them yet
    return { ...t, folder: agent.worktree || w.worktree || agent.cwd, worktree: agent.worktree ?? w.worktree, branch: agent.branch ?? w.branch, base: agent.base ?? w.base };
  }
  if (input.previous && ((input.selfPane && w.pane === input.selfPane) || input.ownWindows?.has(w.window))) return input.previous;
  return { window: w.window, windowName: w.windowName, session: w.session, agent: null, folder: w.worktree || w.paneCwd, worktree: w.worktree, branch: w.branch, base: w.base };
}

/** What the panel's data depends on: when this is the same, a new agent list changes nothing to look up. */
export function targetKey(t: ReviewTarget | null): string {
  return t ? JSON.stringify([t.window, t.folder, t.base, t.branch]) : '';
}

/** What the header shows (name, state): a change redraws but looks nothing up. */
export function targetLook(t: ReviewTarget | null): string {
  return t ? JSON.stringify([t.windowName, t.agent?.name, t.agent?.state, t.agent?.agent]) : '';
}
