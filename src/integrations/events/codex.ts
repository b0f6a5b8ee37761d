// Codex CLI: hooks (Claude-compatible names + `Interrupt`) and the legacy `notify` program payload
// ({"type":"agent-turn-complete","thread-id",…}).
import { claudeLike } from './claude-like.js';
import { isObj, str, type HookFact } from './types.js';

/** The prompt Codex sends for its internal title-generation turn (it fires notify with its own thread-id). */
const TITLE_TURN = /^generate a concise, single-line task title/i;

export function mapCodexNotify(payload: unknown): HookFact | null {
  if (!isObj(payload)) return null;
  const type = str(payload, 'type');
  if (type !== 'agent-turn-complete') return null;
  const msgs = payload['input-messages'];
  if (Array.isArray(msgs) && typeof msgs[0] === 'string' && TITLE_TURN.test(msgs[0].trimStart())) return null;
  const fact: HookFact = { kind: 'turn-end', agent: 'codex', event: 'notify:agent-turn-complete', backgroundTasks: 0, subagentsRunning: 0 };
  const thread = str(payload, 'thread-id', 'thread_id');
  if (thread !== undefined) fact.conversationId = thread;
  return fact;
}

export function mapCodex(payload: unknown, eventHint?: string): HookFact | null {
  try {
    if (isObj(payload) && payload['hook_event_name'] === undefined && typeof payload['type'] === 'string') {
      return mapCodexNotify(payload);
    }
    return claudeLike('codex', payload, eventHint);
  } catch { return null; }
}
