// Follows a target and keeps its review data fresh: a new agent list or active-window list
// (from the supervisor's stream) picks the target; a new target, a file change in its checkout
// (debounced) or a refresh key gathers again. One gather at a time; one watcher per checkout.
// It owns its watcher and timers and disposes of them.

import { gatherReview, type ReviewData } from './data.js';
import { agentTarget, findAgent, follow, targetKey, targetLook, type ReviewAgent, type ReviewTarget } from './follow.js';
import { ignoredFolders, type Repo } from './git.js';
import { Debouncer, watchCheckout, watchNotes, type CheckoutWatch } from './watch.js';
import { NOTE_FILES } from './notes.js';
import type { ActiveWindow } from '../supervisor/active.js';

export type Pin = { kind: 'agent'; target: string } | { kind: 'folder'; folder: string } | null;

export interface ControllerDeps {
  dataDir: string;
  /** The session the panel runs in ($3), or null outside tmux. */
  session: string | null;
  selfPane: string | null;
  pin: Pin;
  show(data: ReviewData): void;
  say(text: string): void;
  /** For tests: no file watcher. */
  watch?: boolean;
}

export function folderTarget(folder: string): ReviewTarget {
  return { window: '', windowName: folder.split('/').pop() || folder, session: '', agent: null, folder, worktree: null, branch: null, base: null };
}

export class ReviewController {
  private agents: ReviewAgent[] = [];
  private active: ActiveWindow[] = [];
  private target: ReviewTarget | null = null;
  private data: ReviewData | null = null;
  private gathering = false;
  private again = false;
  private watcher: { top: string; w: CheckoutWatch } | null = null;
  private notesWatcher: CheckoutWatch | null = null;
  /** The repository of the folder looked at last (found once, not on every refresh). */
  private repo: { folder: string; repo: Repo } | null = null;
  private readonly debounce: Debouncer;
  private disposed = false;
  /** Windows the panel opened (editors): they do not take the panel away from what it shows. */
  readonly ownWindows = new Set<string>();
  /** Gathers done (the bench and tests read it). */
  gathers = 0;

  constructor(private readonly deps: ControllerDeps) {
    this.debounce = new Debouncer(() => this.refresh());
    if (deps.watch !== false) {
      try {
        this.notesWatcher = watchNotes(deps.dataDir, Object.values(NOTE_FILES), () => this.debounce.poke());
      } catch {
        // an unwritable data dir: notes show on the next refresh
      }
    }
    if (deps.pin?.kind === 'folder') this.retarget();
  }

  setAgents(agents: ReviewAgent[]): void {
    this.agents = agents;
    this.retarget();
  }

  setActive(active: ActiveWindow[]): void {
    this.active = active;
    this.retarget();
  }

  current(): ReviewTarget | null {
    return this.target;
  }

  private pick(): ReviewTarget | null {
    const pin = this.deps.pin;
    if (pin?.kind === 'folder') return folderTarget(pin.folder);
    if (pin?.kind === 'agent') {
      const a = findAgent(this.agents, pin.target);
      if (!a) this.deps.say(`no agent "${pin.target}" (any more): ${this.agents.map((x) => x.name).join(', ') || 'none running'}`);
      return a ? agentTarget(a) : this.target;
    }
    if (!this.deps.session) return this.target;
    return follow({ session: this.deps.session, active: this.active, agents: this.agents, selfPane: this.deps.selfPane, ownWindows: this.ownWindows, previous: this.target });
  }

  private retarget(): void {
    if (this.disposed) return;
    const next = this.pick();
    const changed = targetKey(next) !== targetKey(this.target);
    const looks = targetLook(next) !== targetLook(this.target);
    this.target = next;
    if (changed) {
      this.refresh();
    } else if (looks && next && this.data) {
      // a new state or name: drawn again, nothing looked up
      this.data = { ...this.data, windowName: next.windowName, agent: next.agent ? { name: next.agent.name, agent: next.agent.agent, state: next.agent.state } : null };
      this.deps.show(this.data);
    }
  }

  /** Gathers now (or right after the gather under way). */
  refresh(): void {
    if (this.disposed || !this.target) return;
    if (this.gathering) {
      this.again = true;
      return;
    }
    this.gathering = true;
    const t = this.target;
    const hint = this.repo?.folder === t.folder ? this.repo.repo : null;
    void gatherReview(t, this.deps.dataDir, hint, (p) => this.agents.find((a) => a.worktree === p)?.name ?? null)
      .then(
        async (d) => {
          this.gathers++;
          this.repo = d.repo && d.gitDir && !d.problem ? { folder: t.folder, repo: { top: d.repo, gitDir: d.gitDir } } : null;
          if (this.disposed) return;
          if (targetKey(this.target) !== targetKey(t)) {
            this.again = true;
            return;
          }
          this.data = d;
          this.deps.show(d);
          await this.watchFor(d);
        },
        (err: Error) => this.deps.say(`cannot read ${t.folder}: ${err.message}`),
      )
      .finally(() => {
        this.gathering = false;
        if (this.again) {
          this.again = false;
          this.refresh();
        }
      });
  }

  private async watchFor(d: ReviewData): Promise<void> {
    if (this.deps.watch === false) return;
    const top = d.repo;
    if (this.watcher?.top === top) return;
    await this.unwatch();
    if (!top || !d.gitDir || this.disposed) return;
    const skip = await ignoredFolders(top);
    if (this.disposed || this.watcher) return;
    const w = watchCheckout(top, d.gitDir, skip, () => this.debounce.poke());
    this.watcher = { top, w };
    // what changed between the gather and the end of the watcher's first scan was in no event
    void w.ready.then(() => {
      if (this.watcher?.w === w) this.refresh();
    });
  }

  private async unwatch(): Promise<void> {
    const w = this.watcher;
    this.watcher = null;
    this.debounce.dispose();
    if (w) await w.w.close();
  }

  /** Resolves once the watcher of the current checkout has scanned it (tests, the bench). */
  async watching(): Promise<boolean> {
    if (!this.watcher) return false;
    await this.watcher.w.ready;
    return true;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.unwatch();
    await this.notesWatcher?.close();
  }
}
