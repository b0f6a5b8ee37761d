// What the supervisor knows about one watched agent pane.

import type { AgentState } from '../types.js';
import type { Mirror } from '../mirror/mirror.js';
import type { FoundPane } from './discover.js';
import { Arbiter } from '../state/index.js';
import type { Detection } from '../detect/index.js';
import { PaneProber } from '../detect/prober.js';
import type { Timer } from './clock.js';

export interface WatchedAgent {
  paneId: string;
  windowId: string;
  id: string;
  agent: string;
  name: string;
  cwd: string;
  argv: string[];
  /** The user's own launch arguments, without nerdr's wiring. */
  args: string[];
  secretHash: string;
  links: FoundPane['links'];
  mirror: Mirror | null;
  /** A snapshot is on its way: %output for the pane is dropped until it lands. */
  seeding: boolean;
  dead: boolean;
  deadStatus: string;
  inMode: boolean;
  state: AgentState;
  stateSince: number;
  lastOutputAt: number;
  /** Evaluation scheduled (output is coalesced). */
  evalTimer: Timer | null;
  lastEvalAt: number;
  /** The arbiter's one pending deadline. */
  stateTimer: Timer | null;
  arbiter: Arbiter;
  /** Last screen evaluation, for `nerdr explain`. */
  lastDetection: { at: number; result: Detection; manifest: { source: string; path: string; version: string | null } } | null;
  background: boolean;
  /** Since when a client has been showing this window (for the one-second "seen" rule). */
  viewedSince: number | null;
  /** Bumped when the pane's process is replaced (respawn), so waits tied to the old one end. */
  generation: number;
  /** Which agent runs in the pane, from its processes (manifest-format.md §7). */
  prober: PaneProber;
  /** Whether the prober runs: only for windows not launched as a known agent (`--cmd`). */
  probed: boolean;
  panePid: number;
  probeTimer: Timer | null;
  probeAt: number | null;
  lastCommand: string;
  /** Something the user should know about this window (e.g. a resume that failed). */
  note: string | null;
  /** The worktree nerdr made for this window, its branch and base; null for none. */
  worktree: string | null;
  branch: string | null;
  base: string | null;
}

export function newWatched(p: FoundPane, clock: () => number): WatchedAgent {
  const now = clock();
  return {
    paneId: p.paneId,
    windowId: p.windowId,
    id: p.id,
    agent: p.agent,
    name: p.name,
    cwd: p.cwd,
    argv: p.argv,
    args: p.args,
    secretHash: p.secretHash,
    links: p.links,
    mirror: null,
    seeding: false,
    dead: p.dead,
    deadStatus: p.deadStatus,
    inMode: false,
    state: p.dead ? 'exited' : 'unknown',
    stateSince: now,
    lastOutputAt: 0,
    evalTimer: null,
    lastEvalAt: 0,
    stateTimer: null,
    arbiter: new Arbiter({ agent: p.agent, clock }),
    lastDetection: null,
    background: false,
    viewedSince: null,
    generation: 0,
    prober: new PaneProber({ clock, agent: p.agent === 'unknown' ? null : p.agent }),
    probed: false,
    panePid: p.panePid,
    probeTimer: null,
    probeAt: null,
    lastCommand: '',
    note: p.note || null,
    worktree: p.worktree || null,
    branch: p.worktree ? p.branch : null,
    base: p.worktree ? p.base : null,
  };
}
