// Everything the panel shows about one target, gathered at once: what `nerdr review --once
// --json` prints and what the panel draws. git runs in parallel; notes are read from the data dir.

import { existsSync } from 'node:fs';
import { committedFiles, findRepo, type Repo, type ReviewFile } from './git.js';
import { checkoutChanges } from '../worktrees/status.js';
import { readNotes, type ReviewNote } from './notes.js';
import type { ReviewTarget } from './follow.js';
import { stateDir } from '../paths.js';
import { findConflicts, sharedByWorktree } from '../worktrees/conflicts.js';
import { WorktreeRegistry } from '../worktrees/registry.js';

export interface ReviewData {
  window: string;
  windowName: string;
  session: string;
  agent: { name: string; agent: string; state: string } | null;
  folder: string;
  /** The checkout's top folder and git dir; null outside a repository. */
  repo: string | null;
  gitDir: string | null;
  /** Why there is nothing to show (no repository, folder gone), or null. */
  problem: string | null;
  worktree: string | null;
  branch: string | null;
  head: string | null;
  /** The base compared with: the window's, else the branch's upstream; null for none. */
  base: string | null;
  ahead: number | null;
  behind: number | null;
  /** Staged, unstaged and untracked files, then those the commits since the base changed. */
  files: ReviewFile[];
  /**
   * In a worktree nerdr made: the files another nerdr worktree of the repository changed too,
   * and whose (its agent's window name where known, else the worktree's name); worked out at each
   * gather, which the panel's watch starts when files change (src/worktrees/conflicts.ts).
   */
  shared: { path: string; with: string[] }[];
  steps: ReviewNote[];
  why: ReviewNote[];
  /** How long gathering took (ms). */
  tookMs: number;
}

const KIND_ORDER = ['staged', 'unstaged', 'untracked', 'committed'];

/** Staged, unstaged, untracked, committed; git's order (by path) within each. */
export function sortFiles(files: ReviewFile[]): ReviewFile[] {
  return files.map((f, i) => [f, i] as const).sort((a, b) => KIND_ORDER.indexOf(a[0].kind) - KIND_ORDER.indexOf(b[0].kind) || a[1] - b[1]).map(([f]) => f);
}

function empty(t: ReviewTarget, problem: string | null): ReviewData {
  return {
    window: t.window,
    windowName: t.windowName,
    session: t.session,
    agent: t.agent ? { name: t.agent.name, agent: t.agent.agent, state: t.agent.state } : null,
    folder: t.folder,
    repo: null,
    gitDir: null,
    problem,
    worktree: t.worktree,
    branch: t.branch,
    head: null,
    base: t.base,
    ahead: null,
    behind: null,
    files: [],
    shared: [],
    steps: [],
    why: [],
    tookMs: 0,
  };
}

/**
 * The files the worktree at `worktree` shares with the other nerdr worktrees of its repository,
 * each with whose they are (`nameOf`: a worktree path's agent name, when known). Overlap only:
 * no merge check here (`nerdr worktree conflicts` does those).
 */
export async function sharedWithOthers(worktree: string, nameOf: (path: string) => string | null = () => null): Promise<{ path: string; with: string[] }[]> {
  const records = new WorktreeRegistry(stateDir()).list();
  const mine = records.find((r) => r.path === worktree);
  if (!mine) return [];
  const same = records.filter((r) => r.repo === mine.repo);
  if (same.length < 2) return [];
  const report = await findConflicts(same, null, { merge: false });
  const byName = new Map(same.map((r) => [r.name, nameOf(r.path) ?? r.name]));
  return (sharedByWorktree(report).get(worktree) ?? []).map((s) => ({ path: s.path, with: s.with.map((n) => byName.get(n) ?? n) }));
}

/** `repoHint`: the repository found for this folder last time (saves a git run per refresh). */
export async function gatherReview(t: ReviewTarget, dataDir: string, repoHint?: Repo | null, nameOf?: (path: string) => string | null): Promise<ReviewData> {
  const t0 = performance.now();
  const notes = t.window ? readNotes(dataDir, { window: t.window, conversation: t.agent?.conversationId ?? null }, t.folder) : Promise.resolve({ steps: [], why: [] });
  let out: ReviewData;
  if (!t.folder || !existsSync(t.folder)) {
    out = empty(t, t.folder ? `the folder ${t.folder} is gone` : 'this window has no folder');
  } else {
    const repo = repoHint ?? (await findRepo(t.folder));
    if (!repo) out = empty(t, `no git repository at ${t.folder}`);
    else {
      try {
        const st = await checkoutChanges(repo.top, t.base);
        const committed = st.base && st.ahead ? await committedFiles(repo.top, st.base) : [];
        out = {
          ...empty(t, null),
          repo: repo.top,
          gitDir: repo.gitDir,
          branch: st.branch ?? t.branch,
          head: st.head,
          base: st.base,
          ahead: st.ahead,
          behind: st.behind,
          files: sortFiles([...st.files, ...committed]),
          shared: t.worktree ? await sharedWithOthers(t.worktree, nameOf).catch(() => []) : [],
        };
      } catch (err) {
        out = { ...empty(t, `git cannot read ${repo.top}: ${(err as Error).message}`), repo: repo.top, gitDir: repo.gitDir };
      }
    }
  }
  const { steps, why } = await notes;
  out.steps = steps;
  out.why = why;
  out.tookMs = Math.round((performance.now() - t0) * 10) / 10;
  return out;
}
