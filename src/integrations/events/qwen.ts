// Qwen Code hooks (Claude's event names and snake_case fields, Qwen Code 0.24.4 recorded offline:
// test/fixtures/hooks/qwen-0.24.4.jsonl). Where it differs from Claude:
// - after a tool's result the model's next request fires UserPromptSubmit again, with an empty
//   `prompt` and no `submitted_prompt`: activity of the same turn, not a new prompt;
// - a refused permission (Esc, or "No") sends only PostToolBatch, its call "cancelled": the
//   user stopped the turn (no Stop follows);
// - PreToolUse comes only once a call may run: for ask_user_question, after the answer;
// - an interrupt sends no event of its own: the idle_prompt Notification that follows a turn
//   with no Stop says the turn was stopped (the arbiter's notification-idle rule).
import { claudeLike } from './claude-like.js';
import { isObj, str, type HookFact } from './types.js';

export function mapQwen(payload: unknown, eventHint?: string): HookFact | null {
  try {
    const f = claudeLike('qwen', payload, eventHint);
    if (f === null || !isObj(payload)) return f;
    if (f.kind === 'prompt-submit' && !('submitted_prompt' in payload)) return { ...f, kind: 'tool', detail: 'continues after a tool' };
    // PreToolUse comes once a call is allowed; for its question tool, once the user answered
    if (f.kind === 'question' && f.event === 'PreToolUse') return { ...f, kind: 'answered' };
    if (f.event === 'PostToolBatch') {
      const calls = Array.isArray(payload['tool_calls']) ? (payload['tool_calls'] as unknown[]).filter(isObj) : [];
      const cancelled = calls.find((c) => str(c, 'status') === 'cancelled');
      if (cancelled) return { ...f, kind: 'answered', denied: true, detail: `${str(cancelled, 'tool_name') ?? 'a tool'} cancelled` };
    }
    return f;
  } catch {
    return null;
  }
}
