// Gemini CLI hooks (BeforeAgent/AfterAgent/BeforeTool/AfterTool/Notification/…; snake_case payloads).
// Seen offline with 0.61.0 (test/fixtures/hooks/gemini-0.61.0.jsonl): Notification ToolPermission comes
// for the shell prompt (details.type "exec") and for ask_user (details.type "ask_user"); a subagent is
// the tool invoke_agent, its BeforeTool/AfterTool bracket the child's run; a deny with Esc fires nothing,
// an interrupt fires AfterAgent; PreCompress fires before every model call.
import { isObj, normEvent, sessionSource, str, type HookFact } from './types.js';

export function mapGemini(payload: unknown, eventHint?: string): HookFact | null {
  try {
    if (!isObj(payload)) return null;
    const event = str(payload, 'hook_event_name', 'hookEventName') ?? eventHint;
    if (event === undefined) return null;
    const base: HookFact = { kind: 'tool', agent: 'gemini', event };
    const conversationId = str(payload, 'session_id', 'sessionId');
    if (conversationId !== undefined) base.conversationId = conversationId;
    const tool = str(payload, 'tool_name', 'toolName');
    switch (normEvent(event)) {
      case 'sessionstart': {
        const source = sessionSource(str(payload, 'source'));
        if (source === 'compact') return null;
        return { ...base, kind: 'session-start', source: source ?? 'startup' };
      }
      case 'beforeagent':
        return { ...base, kind: 'prompt-submit' };
      case 'beforetool':
      case 'aftertool': {
        if (tool === 'invoke_agent') {
          const input = payload['tool_input'];
          const name = isObj(input) ? str(input, 'agent_name') : undefined;
          return { ...base, kind: normEvent(event) === 'beforetool' ? 'subagent-start' : 'subagent-stop', detail: name ?? 'subagent' };
        }
        return { ...base, kind: 'tool', ...(tool ? { detail: tool } : {}) };
      }
      case 'beforemodel':
      case 'precompress':
        return { ...base, kind: 'tool' };
      case 'notification': {
        const type = str(payload, 'notification_type', 'notificationType') ?? '';
        if (type.toLowerCase() !== 'toolpermission') return null;
        const details = payload['details'];
        const what = isObj(details) ? str(details, 'type') : undefined;
        if (what === 'ask_user') return { ...base, kind: 'question', detail: what };
        return { ...base, kind: 'permission', detail: what ?? type };
      }
      case 'afteragent':
        return { ...base, kind: 'turn-end', backgroundTasks: 0, subagentsRunning: 0 };
      case 'sessionend': {
        const reason = str(payload, 'reason');
        return { ...base, kind: 'session-end', ...(reason ? { reason } : {}) };
      }
      default:
        return null; // AfterModel, BeforeToolSelection: noise within a turn
    }
  } catch { return null; }
}
