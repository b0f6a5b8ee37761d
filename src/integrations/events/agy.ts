// Antigravity CLI (agy) hooks: PreInvocation / PostInvocation / PreToolUse / PostToolUse / Stop /
// SessionStart, camelCase payloads (conversationId, terminationReason, fullyIdle). Partly verified:
// the event-name field is not documented, so the hook command should pass it (eventHint).
import { bool, isObj, normEvent, str, type HookFact } from './types.js';

function inferEvent(p: Record<string, unknown>): string | undefined {
  if (p['terminationReason'] !== undefined || p['fullyIdle'] !== undefined) return 'Stop';
  return undefined;
}

export function mapAgy(payload: unknown, eventHint?: string): HookFact | null {
  try {
    if (!isObj(payload)) return null;
    const event = str(payload, 'hookEventName', 'hook_event_name', 'eventName', 'event') ?? eventHint ?? inferEvent(payload);
    if (event === undefined) return null;
    const base: HookFact = { kind: 'tool', agent: 'agy', event };
    const conversationId = str(payload, 'conversationId', 'conversation_id', 'sessionId', 'session_id');
    if (conversationId !== undefined) base.conversationId = conversationId;
    switch (normEvent(event)) {
      case 'sessionstart':
        return { ...base, kind: 'session-start', source: 'startup' };
      case 'preinvocation':
        return { ...base, kind: 'turn-start' };
      case 'pretooluse':
      case 'posttooluse': {
        const tool = str(payload, 'toolName', 'tool_name');
        return { ...base, kind: 'tool', ...(tool ? { detail: tool } : {}) };
      }
      case 'stop': {
        // fullyIdle=false: background tasks still run; their number is not given, count one.
        const fullyIdle = bool(payload, 'fullyIdle');
        const reason = str(payload, 'terminationReason');
        return { ...base, kind: 'turn-end', backgroundTasks: fullyIdle === false ? 1 : 0, subagentsRunning: 0, ...(reason ? { detail: reason } : {}) };
      }
      default:
        return null; // PostInvocation is skipped on interrupt and adds nothing over Stop
    }
  } catch { return null; }
}
