// opencode plugin events ({id, type, properties}, possibly wrapped as {event: {...}}), forwarded by
// nerdr's plugin. Also accepts the plugin's own hook names ("chat.message", "tool.execute.before").
import { isObj, str, type HookFact } from './types.js';

const BUSY = new Set(['busy', 'active', 'pending', 'retry', 'running', 'streaming', 'working']);

/** Kilo Code, an opencode fork: the same events, from the same plugin. */
export function mapKilo(payload: unknown, eventHint?: string): HookFact | null {
  const f = mapOpencode(payload, eventHint);
  return f === null ? null : { ...f, agent: 'kilo' };
}

export function mapOpencode(payload: unknown, eventHint?: string): HookFact | null {
  try {
    if (!isObj(payload)) return null;
    const ev = isObj(payload['event']) ? payload['event'] : payload;
    const type = str(ev, 'type') ?? eventHint;
    if (type === undefined) return null;
    const props = isObj(ev['properties']) ? ev['properties'] : {};
    const info = isObj(props['info']) ? props['info'] : {};
    const base: HookFact = { kind: 'tool', agent: 'opencode', event: type };
    const conversationId = str(props, 'sessionID', 'sessionId') ?? str(info, 'id') ?? str(ev, 'sessionID', 'sessionId');
    if (conversationId !== undefined) base.conversationId = conversationId;
    // A child session (subagent/task) carries info.parentID.
    const child = str(info, 'parentID', 'parentId') !== undefined;
    let fact: HookFact | null;
    switch (type) {
      case 'session.created':
        fact = { ...base, kind: 'session-start', source: 'new' };
        break;
      case 'session.status': {
        const st = props['status'];
        const s = (typeof st === 'string' ? st : isObj(st) ? str(st, 'type') ?? '' : '').toLowerCase();
        if (s === 'idle') fact = { ...base, kind: 'turn-end', backgroundTasks: 0, subagentsRunning: 0 };
        else if (BUSY.has(s)) fact = { ...base, kind: 'turn-start', detail: s };
        else return null;
        break;
      }
      case 'session.idle':
        fact = { ...base, kind: 'turn-end', backgroundTasks: 0, subagentsRunning: 0 };
        break;
      case 'session.error': {
        // Esc (twice) aborts the turn: MessageAbortedError, then session.status idle and session.idle
        const error = isObj(props['error']) ? props['error'] : {};
        if (str(error, 'name') === 'MessageAbortedError') fact = { ...base, kind: 'interrupt', detail: 'MessageAbortedError' };
        else fact = { ...base, kind: 'turn-end', error: true, backgroundTasks: 0, subagentsRunning: 0 };
        break;
      }
      case 'chat.message':
        fact = { ...base, kind: 'prompt-submit' };
        break;
      case 'tool.execute.before':
      case 'tool.execute.after':
        fact = { ...base, kind: 'tool', ...(str(props, 'tool') ? { detail: str(props, 'tool') as string } : {}) };
        break;
      case 'permission.asked':
      case 'permission.updated':
      case 'permission.v2.asked':
        fact = { ...base, kind: 'permission', ...(str(props, 'permission') ? { detail: str(props, 'permission') as string } : {}) };
        break;
      case 'question.asked':
        fact = { ...base, kind: 'question' };
        break;
      case 'permission.replied': {
        // Esc at the dialog replies "reject" (older opencode: `response`); opencode then stops the turn
        const reply = str(props, 'reply', 'response');
        fact = { ...base, kind: 'answered', ...(reply ? { detail: reply } : {}), ...(reply === 'reject' ? { denied: true } : {}) };
        break;
      }
      case 'question.replied':
      case 'question.rejected':
        fact = { ...base, kind: 'answered', ...(str(props, 'reply') ? { detail: str(props, 'reply') as string } : {}) };
        break;
      case 'session.deleted':
        fact = { ...base, kind: 'session-end', reason: 'deleted' };
        break;
      default:
        return null; // message.*, session.updated/diff/compacted, todo.updated …: noise
    }
    if (child) {
      if (fact.kind !== 'permission' && fact.kind !== 'question' && fact.kind !== 'answered') return null;
      fact.subagent = true;
    }
    return fact;
  } catch { return null; }
}
