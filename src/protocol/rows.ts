// The agent row: one watched window as every method that lists agents answers it (`nerdr.ls`,
// `nerdr.events`, `nerdr.subscribe`, `nerdr.wait`, `nerdr.explain`). The supervisor builds it
// (src/supervisor/rows.ts); the CLI, the dashboard, the fleet and scripts read it.

export interface AgentRow {
  /** Working only because subagents or background tasks still run. */
  background: boolean;
  subagents: number;
  backgroundTasks: number;
  conversationId: string | null;
  conversationFrom: string | null;
  /** Whether the user has looked at it since it settled: for done and idle; null in other states. */
  seen: boolean | null;
  /** Messages waiting to be delivered, and whether delivery is paused after a stall. */
  queue: number;
  queueStalled: boolean;
  /** Something to know about the window, e.g. "resume failed: started a new conversation". */
  note: string | null;
  /** The user's own launch arguments (without nerdr's wiring). */
  args: string[];
  name: string;
  /** The window's agent (launched, or found running): what `nerdr restore` starts again. */
  agent: string;
  /** The label a custom herdr report gave it (`--agent mybot`), when not the window's own. */
  reportedAgent: string | null;
  /** From `pane report-metadata`: a title, a name to show for the agent, a text per state. */
  title: string | null;
  displayAgent: string | null;
  /** The reported label for the current state, if any. */
  stateLabel: string | null;
  stateLabels: Record<string, string>;
  tokens: Record<string, string>;
  state: string;
  stateSince: number;
  /**
   * While `limited`: the agent's words and when its usage limit resets (epoch ms; null when
   * unknown); null in other states. Absent from a nerdr before usage limits (a fleet host).
   */
  limit?: { words: string; resetAt: number | null; resetText: string | null } | null;
  session: string;
  sessions: string[];
  window: string;
  windowIndex: number | null;
  pane: string;
  cwd: string;
  id: string;
  exitStatus: string | null;
  /** The agent window that started this one (its id), or null when a person did. */
  parent: string | null;
  /** The worktree nerdr made for the window, its branch and its base; null when none. */
  worktree: string | null;
  branch: string | null;
  base: string | null;
  /**
   * In a worktree nerdr made: what its branch would conflict with (its base, other branches),
   * checked when its agent ends a turn; null when it merges cleanly or was not checked.
   */
  conflict: string | null;
  /**
   * Hibernated (docs/lifecycle.md): since when (epoch ms), and the memory its process tree held
   * before it ended (kB, null when unknown); null while it runs. Optional: older supervisors lack it.
   */
  hibernated?: { since: number; rssKb: number | null } | null;
}
