// Normalised hook facts: what an agent's hook payload means, independent of the agent.
// Each agent module turns the JSON its hook writes to stdin into at most one HookFact.
// The arbiter (src/state) consumes facts; it never looks at raw payloads.

/**
 * What happened, normalised.
 * - `session-start`   a conversation began or was resumed/cleared (compaction restarts are dropped by the mappers)
 * - `prompt-submit`   the user (or a scheduled wakeup, see `scheduled`) submitted a prompt: a turn starts
 * - `turn-start`      a turn started without a prompt event (opencode busy, agy PreInvocation, Gemini BeforeAgent)
 * - `tool`            activity inside a turn (tool before/after, model call, compaction)
 * - `permission`      a permission dialog opened (blocked at once)
 * - `question`        the agent asks the user a question / elicitation (blocked at once)
 * - `answered`        a dialog was answered and the agent continues (opencode permission.replied …);
 *                     `denied`: the user refused it, which stops the turn unless the agent goes on
 * - `turn-end`        the main turn finished (see `backgroundTasks`, `subagentsRunning`, `error`)
 * - `interrupt`       the user interrupted the turn (Codex `Interrupt`, opencode's MessageAbortedError): idle,
 *                     and a turn end that follows it is idle too
 * - `notification-idle` the agent says it waits for input (Claude idle_prompt)
 * - `subagent-start` / `subagent-stop`  counted by the arbiter
 * - `session-end`     the conversation ended (usually the process exits right after)
 */
export type HookKind =
  | 'session-start'
  | 'prompt-submit'
  | 'turn-start'
  | 'tool'
  | 'permission'
  | 'question'
  | 'answered'
  | 'turn-end'
  | 'interrupt'
  | 'notification-idle'
  | 'subagent-start'
  | 'subagent-stop'
  | 'session-end';

export type SessionSource = 'startup' | 'resume' | 'clear' | 'compact' | 'fork' | 'new' | 'other';

export interface HookFact {
  kind: HookKind;
  /** The id of the integration whose hook sent it. */
  agent: string;
  /** The agent's own event name, as received (e.g. "PermissionRequest", "session.status"). */
  event: string;
  /** The agent's conversation/session id when the payload carries one. */
  conversationId?: string;
  /** True when the event comes from inside a subagent/child session (only permission/question/answered are kept). */
  subagent?: boolean;
  /** Subagent id for subagent-start/-stop (lets the arbiter count distinct ids). */
  subagentId?: string;
  /** turn-end only: background commands/monitors still running (Claude `background_tasks`, excluding subagents). */
  backgroundTasks?: number;
  /** turn-end only: background subagents listed as still running in the Stop payload. */
  subagentsRunning?: number;
  /** session-start only. */
  source?: SessionSource;
  /** prompt-submit caused by a scheduled wakeup/loop rather than the user. */
  scheduled?: boolean;
  /** turn-end caused by an error (Claude StopFailure, opencode session.error, Copilot errorOccurred). */
  error?: boolean;
  /**
   * turn-end with `error` only: what the agent says went wrong, when its payload says (Claude
   * StopFailure: `error` "rate_limit", `last_assistant_message` "You've hit your session limit ·
   * resets 3pm (UTC)"). The supervisor reads a usage limit from it (src/detect/limits.ts).
   */
  failure?: { type: string | null; message: string | null };
  /** turn-end only: the usage limit the agent hit, read from `failure` by the supervisor. */
  limit?: { words: string; resetAt: number | null; resetText: string | null };
  /** answered only: the user refused the permission (opencode reply "reject"). */
  denied?: boolean;
  /**
   * turn-end only: the agent's transcript, where its payload cannot tell an interrupted turn from a
   * finished one (Gemini AfterAgent); `refineFact` reads its tail. With `at`, the hook's time.
   */
  transcript?: { path: string; at?: string };
  /** session-end reason as sent by the agent. */
  reason?: string;
  /** Short human detail for `explain`: tool name, notification type, … */
  detail?: string;
}

export type HookMapper = (payload: unknown, eventHint?: string) => HookFact | null;

// ---- defensive accessors (payloads are untrusted; never throw) ----

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** First non-empty string among the given keys. */
export function str(o: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return undefined;
}

export function bool(o: Record<string, unknown>, ...keys: string[]): boolean | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'boolean') return v;
  }
  return undefined;
}

/** Lower-case and drop `_`, `-`, `.`, spaces: "PreToolUse", "pre_tool_use", "preToolUse" → "pretooluse". */
export function normEvent(name: string): string {
  return name.replace(/[_\-.\s]/g, '').toLowerCase();
}

export function sessionSource(v: string | undefined): SessionSource | undefined {
  if (v === undefined) return undefined;
  const s = v.toLowerCase();
  if (s === 'startup' || s === 'resume' || s === 'clear' || s === 'compact' || s === 'fork' || s === 'new') return s;
  return 'other';
}

const TERMINAL_TASK_STATUS = new Set([
  'completed', 'complete', 'done', 'finished', 'failed', 'error', 'errored', 'killed', 'stopped', 'cancelled', 'canceled', 'exited', 'succeeded', 'success', 'timeout', 'timed_out',
]);

/**
 * Count Claude-style `background_tasks` entries still running, split into subagents and the rest.
 * Entries with a terminal status are not counted; an entry with no status counts as running.
 * `session_crons` (scheduled wakeups) are a separate field and never counted.
 */
export function countBackground(v: unknown): { tasks: number; subagents: number } {
  let tasks = 0;
  let subagents = 0;
  if (!Array.isArray(v)) return { tasks, subagents };
  for (const e of v) {
    if (!isObj(e)) { tasks++; continue; }
    const status = typeof e['status'] === 'string' ? e['status'].toLowerCase() : undefined;
    if (status !== undefined && TERMINAL_TASK_STATUS.has(status)) continue;
    const type = typeof e['type'] === 'string' ? e['type'].toLowerCase() : '';
    if (type === 'subagent' || type === 'agent') subagents++;
    else tasks++;
  }
  return { tasks, subagents };
}
