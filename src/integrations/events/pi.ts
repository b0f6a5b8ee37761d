// pi events, forwarded by nerdr's extension (hooks/pi/nerdr.js): {event, sessionId, sessionFile,
// …fields}, pi 1.6.0 recorded offline (test/fixtures/hooks/pi-1.6.0.jsonl). pi asks no permission
// and has no question tool or subagents of its own; an extension's dialog (ctx.ui.confirm,
// select, input …) is the one thing that waits for the user (ui_prompt_start/_end, `running`
// when inside a run: one closed outside a run leaves pi waiting). A run ends
// with agent_settled, `aborted` when Esc stopped it; `outcome` is its last turn's.
import { isObj, str, type HookFact, type SessionSource } from './types.js';

const SOURCES: Record<string, SessionSource> = { startup: 'startup', new: 'new', resume: 'resume', fork: 'fork' };

export function mapPi(payload: unknown, eventHint?: string): HookFact | null {
  try {
    if (!isObj(payload)) return null;
    const event = str(payload, 'event') ?? eventHint;
    if (event === undefined) return null;
    const base: HookFact = { kind: 'tool', agent: 'pi', event };
    const id = str(payload, 'sessionId');
    if (id !== undefined) base.conversationId = id;
    switch (event) {
      case 'session_start': {
        const reason = str(payload, 'reason') ?? 'startup';
        return { ...base, kind: 'session-start', source: SOURCES[reason] ?? 'other', detail: reason };
      }
      case 'before_agent_start':
        // a run for an extension's message is not the user's prompt
        return str(payload, 'messageType') === 'custom' ? { ...base, kind: 'turn-start', detail: 'an extension\'s message' } : { ...base, kind: 'prompt-submit' };
      case 'agent_start':
        return { ...base, kind: 'turn-start' };
      case 'tool_execution_start':
        return { ...base, kind: 'tool', ...(str(payload, 'toolName') ? { detail: str(payload, 'toolName') as string } : {}) };
      case 'session_compact':
        return { ...base, kind: 'tool', detail: 'compaction' };
      case 'agent_settled': {
        if (payload['aborted'] === true) return { ...base, kind: 'interrupt', detail: 'aborted' };
        const error = str(payload, 'outcome') === 'error';
        return { ...base, kind: 'turn-end', backgroundTasks: 0, subagentsRunning: 0, ...(error ? { error: true, detail: 'error' } : {}) };
      }
      case 'ui_prompt_start':
        return { ...base, kind: 'question', ...(str(payload, 'title') ?? str(payload, 'kind') ? { detail: (str(payload, 'title') ?? str(payload, 'kind')) as string } : {}) };
      case 'ui_prompt_end':
        // closed outside a run (a command's or an input handler's dialog): nothing goes on, pi waits
        if (payload['running'] === false) return { ...base, kind: 'notification-idle', detail: 'a dialog closed outside a run' };
        return { ...base, kind: 'answered', ...(str(payload, 'kind') ? { detail: str(payload, 'kind') as string } : {}) };
      case 'session_shutdown':
        // new, resume, fork and reload replace the session: a session_start follows
        return str(payload, 'reason') === 'quit' ? { ...base, kind: 'session-end', reason: 'quit' } : null;
      default:
        return null;
    }
  } catch {
    return null;
  }
}
