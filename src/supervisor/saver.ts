// Saved sessions for `nerdr restore`: every user session's agent windows, written a second after a
// change (coalesced) when what is saved of them changed, through the store that keeps snapshots
// (src/store/sessions.ts).

import type { Reply } from '../tmux/client.js';
import { command } from '../tmux/quote.js';
import { SessionStore, type SavedWindow } from '../store/sessions.js';
import type { WatchedAgent } from './agent.js';
import type { Messenger } from './messages.js';
import type { Logger } from './log.js';
import type { Clock, Timer } from './clock.js';

export interface SaverDeps {
  agents(): Iterable<WatchedAgent>;
  messages: Messenger;
  sendLine(commands: string[], done: (replies: Reply[]) => void): void;
  /** False until the first scan is done, and once the supervisor stops. */
  active(): boolean;
  stopping(): boolean;
  tmuxSocket: string;
  clock: Clock;
  log: Logger;
}

const SAVE_DELAY_MS = 1000;

export class SessionSaver {
  private timer: Timer | null = null;
  /** Sessions saved by this supervisor: one that loses its last agent is saved empty. */
  private readonly saved = new Set<string>();
  /**
   * The windows each session was last written with: a change of a window's state (most changes)
   * alters nothing saved, and writing the same windows again cost a file lock, a read, two
   * validations and two fsyncs per second with a hundred busy windows (docs/performance.md).
   */
  private readonly written = new Map<string, string>();
  /** What the last save took of each window: a change that alters none of it schedules nothing. */
  private records = new Map<WatchedAgent, string>();

  constructor(
    private readonly store: SessionStore,
    private readonly deps: SaverDeps,
  ) {}

  /**
   * A window changed (`present`: it is still watched): saved a second later if what is saved of
   * it changed. A state change alone saves nothing, and costs no walk over every window.
   */
  changed(a: WatchedAgent, present: boolean): void {
    if (present && this.records.get(a) === JSON.stringify(this.windowsOf(a))) return;
    this.schedule();
  }

  schedule(): void {
    if (this.timer || this.deps.stopping()) return;
    this.timer = this.deps.clock.after(SAVE_DELAY_MS, () => {
      this.timer = null;
      if (this.deps.active()) void this.save();
    });
  }

  dispose(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** What is saved of a window, in each session it is linked into. */
  private windowsOf(a: WatchedAgent): { session: string; window: SavedWindow }[] {
    const v = a.arbiter.view();
    return a.links.map((l) => ({
      session: l.session,
      window: {
        agent: a.agent,
        name: a.name,
        index: l.index,
        cwd: a.cwd,
        args: a.args,
        argv: a.argv,
        conversationId: a.hibernation?.conversationId ?? v.conversationId,
        conversationFrom: a.hibernation ? 'launch' : v.conversationFrom,
        // one being typed in is not saved: restore must not queue it again
        queue: this.deps.messages.queue(a).messages.filter((m) => m.typingAt === null).map((m) => ({ id: m.id, text: m.text, queuedAt: m.queuedAt })),
        worktree: a.worktree,
        branch: a.branch,
        base: a.base,
        ...(a.probed ? { idleAfterMs: a.idleAfterMs } : {}),
        ...(a.hibernation ? { hibernated: { since: a.hibernation.since, screen: a.hibernation.screen, rssKb: a.hibernation.rssKb } } : {}),
      },
    }));
  }

  /**
   * Writes every user session's agent windows (the store keeps snapshots). A session this
   * supervisor saved before and that now has no agent is saved empty only while tmux still has it:
   * windows that vanish because the server is going down are not "closed".
   */
  async save(): Promise<void> {
    const bySession = new Map<string, SavedWindow[]>();
    const records = new Map<WatchedAgent, string>();
    for (const a of this.deps.agents()) {
      const windows = this.windowsOf(a);
      records.set(a, JSON.stringify(windows));
      for (const { session, window } of windows) {
        const list = bySession.get(session) ?? [];
        list.push(window);
        bySession.set(session, list);
      }
    }
    this.records = records;
    for (const s of this.saved) {
      if (bySession.has(s)) continue;
      const still = await new Promise<boolean>((resolve) =>
        this.deps.sendLine([command('display', '-p', '-t', `=${s}:`, '#{session_id}')], ([r]) => resolve(r?.ok === true)),
      );
      if (still && !this.deps.stopping()) bySession.set(s, []);
    }
    const savedAt = new Date(this.deps.clock.now()).toISOString();
    for (const [session, windows] of bySession) {
      try {
        windows.sort((x, y) => x.index - y.index);
        const content = JSON.stringify(windows);
        if (this.written.get(session) === content) continue;
        const first = !this.saved.has(session);
        this.store.save({ version: 1, server: this.deps.tmuxSocket, session, savedAt, windows }, { snapshot: first ? 'always' : 'when-due' });
        this.saved.add(session);
        this.written.set(session, content);
      } catch (err) {
        this.deps.log('error', `cannot save session ${session}: ${(err as Error).message}`);
      }
    }
  }
}
