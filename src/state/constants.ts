// Every timing constant of the arbiter, in milliseconds. docs/state-rules.md explains each.

/** After a process starts, screen evaluations are not used for this long (as in herdr). */
export const STARTUP_GRACE_MS = 3000;
/** Screen path, working → done: the idle screen must be unchanged this long … */
export const DONE_UNCHANGED_MS = 2500;
/** … or idle (changing or not) this long. */
export const DONE_IDLE_MS = 20000;
/** Agents whose manifest has no idle rule: a screen no rule matches, unchanged this long, is idle. */
export const FALLBACK_IDLE_MS = 6000;
/** Pending-idle hold: idle without visible evidence, reached from unknown/blocked, is published after this. */
export const PENDING_IDLE_HOLD_MS = 700;
/** Hook said blocked, but no dialog on screen for this long → the dialog was answered (or denied with Esc). */
export const ANSWERED_MS = 2000;
/** A dialog leaves the screen and the idle prompt follows within this long, with no hook in between
 *  (a working frame at most, not work): the user dismissed it (a deny with Esc), so that idle is not a
 *  completion. Short: an approved turn that ends sooner would show idle rather than done. */
export const DISMISSED_WORK_MS = 1200;
/** Hook said working, but the screen is idle and unchanged this long → the turn was interrupted (no hook fires). */
export const INTERRUPTED_IDLE_MS = 3000;
/** Hook said the turn ended (or was interrupted), but the screen shows work this long → new activity without a hook. */
export const HOOK_IDLE_CONTRADICTED_MS = 2000;
/** Background phase (turn ended, subagents/background tasks remain): with counted subagents still running,
 *  only an idle screen unchanged this long ends it (a missed SubagentStop must not pin "working" forever). */
export const BACKGROUND_STALE_MS = 20000;
/** Claude's status file says idle while the hooks still say working or blocked: a turn end hook
 *  (Stop) that is on its way gets this long before the turn counts as stopped by the user. Claude
 *  runs its Stop hooks before it writes idle, so the wait is for the delivery only. */
export const STATUS_IDLE_HOLD_MS = 1500;
/** A turn end hook this soon after the status file's idle was taken as a stop: it was a completion. */
export const STATUS_LATE_END_MS = 10000;
/** The quiet rule (a program no manifest knows): its output quiet this long, with the cursor on an
 *  input line, is idle; `nerdr new --cmd … --idle-after S` and config.toml `[detect] idle_after`
 *  change it, 0 switches the rule off. As long as the interrupted-turn and startup waits: a
 *  program streaming an answer pauses for well under a second between chunks, and a message
 *  queued for it waits no longer than for an agent. */
export const DEFAULT_IDLE_AFTER_MS = 3000;
