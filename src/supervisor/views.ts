// Seen: a finished agent counts as seen once its window has been shown by a focused, non-control
// client, with no mode over the pane, for a second (docs/state-rules.md). A stalled message queue
// resumes the same way. Checked only while some agent is done or stalled.

import type { WatchedAgent } from './agent.js';
import type { Messenger } from './messages.js';
import { command } from '../tmux/quote.js';
import type { Logger } from './log.js';
import type { Clock, Timer } from './clock.js';

/** A window must be shown this long before a finished agent counts as seen. */
export const SEEN_AFTER_MS = 1000;

export interface ViewDeps {
  agents(): Iterable<WatchedAgent>;
  messages: Messenger;
  run(cmd: string): Promise<string>;
  /** The agent was seen: hands the arbiter's update to the supervisor. */
  seen(a: WatchedAgent): void;
  /** Which windows matter when shown at all (a hibernated one, with [agents] wake_on_focus), and what then. */
  focused?: { wanted(a: WatchedAgent): boolean; shown(a: WatchedAgent): void };
  stopping(): boolean;
  clock: Clock;
  log: Logger;
}

export class ViewWatcher {
  private timer: Timer | null = null;
  private running = false;
  /** Since when a client has been showing each window (for the one-second rule). */
  private readonly viewedSince = new Map<WatchedAgent, number>();

  constructor(private readonly deps: ViewDeps) {}

  /** Checks after `delay` ms; a pending later check is brought forward by a call without delay. */
  schedule(delay = 0): void {
    if (this.deps.stopping()) return;
    if (this.timer) {
      if (delay > 0) return;
      this.timer.cancel();
    }
    this.timer = this.deps.clock.after(delay, () => {
      this.timer = null;
      void this.check().catch((err: Error) => this.deps.log('warn', `view check failed: ${err.message}`));
    });
  }

  dispose(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** Which windows a focused, non-control client shows with no mode over them; then the 1 s rule. */
  private async check(): Promise<void> {
    if (this.running) {
      this.schedule(50);
      return;
    }
    const agents = [...this.deps.agents()];
    const focus = this.deps.focused;
    const interested = agents.filter((a) => a.state === 'done' || this.deps.messages.queue(a).stalledAt !== null || focus?.wanted(a) === true);
    if (interested.length === 0) {
      this.viewedSince.clear();
      return;
    }
    this.running = true;
    let text: string;
    try {
      text = await this.deps.run(command('list-clients', '-F', '#{client_control_mode}\t#{window_id}\t#{pane_in_mode}\t#{client_flags}'));
    } finally {
      this.running = false;
    }
    const shown = new Set<string>();
    for (const line of text.split('\n')) {
      const [control, win, inMode, flags = ''] = line.split('\t');
      if (control === '1' || inMode === '1' || !win) continue;
      if (!flags.split(',').includes('focused')) continue;
      shown.add(win);
    }
    const now = this.deps.clock.now();
    let next: number | null = null;
    const current = [...this.deps.agents()];
    for (const a of this.viewedSince.keys()) if (!current.includes(a)) this.viewedSince.delete(a);
    for (const a of current) {
      if (!shown.has(a.windowId)) {
        this.viewedSince.delete(a);
        continue;
      }
      // newly shown: a hibernated window wakes at once (wake_on_focus), no second needed
      if (focus?.wanted(a) && !this.viewedSince.has(a)) focus.shown(a);
      const since = this.viewedSince.get(a) ?? now;
      this.viewedSince.set(a, since);
      const due = since + SEEN_AFTER_MS;
      if (now >= due) {
        if (a.state === 'done') this.deps.seen(a);
        this.deps.messages.visited(a);
      } else if (interested.includes(a)) next = Math.min(next ?? due, due);
    }
    if (next !== null) this.schedule(next - now + 5);
  }
}
