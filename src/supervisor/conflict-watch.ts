// A mark in the light of a window whose branch would conflict: when an agent in a worktree nerdr
// made ends a turn (done or idle: when its files changed), the branches of that repository's
// nerdr worktrees are merge-checked in memory (`git merge-tree`, src/worktrees/conflicts.ts),
// each window of them learns whether its branch would conflict with its base or another branch,
// and with which. Debounced per repository, one check at a time; never per byte of output.

import { findConflicts } from '../worktrees/conflicts.js';
import { git, parseGitVersion } from '../worktrees/git.js';
import type { WorktreeRecord } from '../worktrees/registry.js';
import type { Clock, Timer } from './clock.js';
import type { Logger } from './log.js';

/** Wait after a turn ends before the check (more turns ending meanwhile make one check). */
export const CONFLICT_CHECK_DELAY_MS = 2000;

export interface ConflictWatchDeps {
  clock: Clock;
  log: Logger;
  /** Every worktree nerdr made (its registry, read at each check). */
  records(): WorktreeRecord[];
  /** The check itself (tests give their own); default: findConflicts with merge checks. */
  check?(records: WorktreeRecord[]): Promise<Map<string, string | null>>;
  /** The marks of these worktree paths changed: repaint their windows. */
  changed(paths: string[]): void;
}

/** What a worktree's branch would conflict with, per worktree path; null: merges cleanly (or not checked). */
export async function conflictMarks(records: WorktreeRecord[]): Promise<Map<string, string | null>> {
  const v = parseGitVersion((await git('.', ['version'])).stdout);
  const report = await findConflicts(records, v, { merge: true });
  const out = new Map<string, string | null>();
  for (const w of report.worktrees) {
    const with_: string[] = [];
    if (w.intoBase.clean === false) with_.push(w.base);
    for (const p of report.pairs) {
      if (p.merge.clean !== false) continue;
      if (p.a === w.name) with_.push(p.bBranch);
      else if (p.b === w.name) with_.push(p.aBranch);
    }
    out.set(w.path, with_.length ? with_.join(', ') : null);
  }
  return out;
}

export class ConflictWatch {
  private readonly marks = new Map<string, string | null>();
  private readonly timers = new Map<string, Timer>();
  private running: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(private readonly deps: ConflictWatchDeps) {}

  /** What the worktree at `path` would conflict with, or null. */
  mark(path: string | null): string | null {
    return path ? (this.marks.get(path) ?? null) : null;
  }

  /** A turn ended in the worktree at `path`: its repository is checked again, after a moment. */
  turnEnded(path: string): void {
    if (this.disposed) return;
    const rec = this.deps.records().find((r) => r.path === path);
    if (!rec) return;
    this.timers.get(rec.repo)?.cancel();
    this.timers.set(
      rec.repo,
      this.deps.clock.after(CONFLICT_CHECK_DELAY_MS, () => {
        this.timers.delete(rec.repo);
        // one check at a time, in order
        this.running = this.running.then(() => this.checkRepo(rec.repo));
      }),
    );
  }

  private async checkRepo(repo: string): Promise<void> {
    if (this.disposed) return;
    const records = this.deps.records().filter((r) => r.repo === repo);
    let got: Map<string, string | null>;
    try {
      got = await (this.deps.check ?? conflictMarks)(records);
    } catch (err) {
      this.deps.log('warn', `cannot check the worktrees of ${repo} for conflicts: ${(err as Error).message}`);
      return;
    }
    const changed: string[] = [];
    for (const r of records) {
      const now = got.get(r.path) ?? null;
      if ((this.marks.get(r.path) ?? null) !== now) changed.push(r.path);
      this.marks.set(r.path, now);
    }
    if (changed.length && !this.disposed) this.deps.changed(changed);
  }

  dispose(): void {
    this.disposed = true;
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
  }
}
