// `nerdr events`: the agent list as a stream of changes, for scripts, agents and views that must
// not poll. After the snapshot (one `ls --json` row per agent), one line per change: `change`
// (which fields, their earlier values, the row now), `new` (a window appeared), `closed`. A reader
// that falls behind never slows the supervisor: once more than RESYNC_AT_BYTES wait for it,
// changes are no longer written, and when it has caught up one `resync` line gives it every row
// again. docs/orchestration.md.

import type { AgentRow } from '../protocol/index.js';

/** Unread bytes past which a reader gets a `resync` instead of each change. */
export const RESYNC_AT_BYTES = 256 * 1024;

/** Row fields that change with another one and are not a change of their own. */
const FOLLOWERS = new Set<keyof AgentRow>(['stateSince']);

export type EventLine =
  | { type: 'change'; at: number; changed: string[]; was: Record<string, unknown>; agent: AgentRow }
  | { type: 'new'; at: number; agent: AgentRow }
  | { type: 'closed'; at: number; window: string; id: string; name: string }
  | { type: 'resync'; at: number; agents: AgentRow[] };

export interface EventSink {
  /** Writes one line; false once the reader is gone. */
  send(line: EventLine): boolean;
  /** Bytes written that the reader has not taken yet. */
  pending(): number;
  /** Calls `fn` once the reader has taken everything. */
  drained(fn: () => void): void;
}

/** The fields of `now` that differ from `before`, with their earlier values. */
export function rowChanges(before: AgentRow, now: AgentRow): { changed: string[]; was: Record<string, unknown> } {
  const changed: string[] = [];
  const was: Record<string, unknown> = {};
  for (const k of Object.keys(now) as (keyof AgentRow)[]) {
    if (FOLLOWERS.has(k)) continue;
    if (JSON.stringify(before[k]) !== JSON.stringify(now[k])) {
      changed.push(k);
      was[k] = before[k];
    }
  }
  return { changed, was };
}

export class EventFeed {
  /** The last row the reader was given, per pane. */
  private readonly last = new Map<string, AgentRow>();
  private behind = false;

  constructor(
    private readonly sink: EventSink,
    /** Every row now (for a resync), already limited to what this reader follows. */
    private readonly rows: () => { pane: string; row: AgentRow }[],
    private readonly now: () => number,
  ) {}

  /** The snapshot the stream starts with; later changes are against it. */
  start(): AgentRow[] {
    const all = this.rows();
    for (const { pane, row } of all) this.last.set(pane, row);
    return all.map((r) => r.row);
  }

  /** A window changed: its row now, or null when it is gone. */
  update(pane: string, row: AgentRow | null): void {
    if (this.behind) return;
    const before = this.last.get(pane);
    let line: EventLine | null = null;
    if (row === null) {
      if (!before) return;
      this.last.delete(pane);
      line = { type: 'closed', at: this.now(), window: before.window, id: before.id, name: before.name };
    } else if (!before) {
      this.last.set(pane, row);
      line = { type: 'new', at: this.now(), agent: row };
    } else {
      const { changed, was } = rowChanges(before, row);
      if (changed.length === 0) return;
      this.last.set(pane, row);
      line = { type: 'change', at: this.now(), changed, was, agent: row };
    }
    if (!this.sink.send(line)) return;
    if (this.sink.pending() > RESYNC_AT_BYTES) {
      this.behind = true;
      this.sink.drained(() => this.resync());
    }
  }

  private resync(): void {
    this.behind = false;
    this.last.clear();
    const agents = this.start();
    this.sink.send({ type: 'resync', at: this.now(), agents });
  }
}
