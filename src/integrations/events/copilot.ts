// GitHub Copilot CLI hooks. camelCase events (sessionStart, userPromptSubmitted, agentStop, …) carry
// camelCase payloads *without* an event-name field, so the hook command should pass the event name
// (`nerdr hook copilot <event>` → eventHint). Without a hint the event is inferred from the fields.
// PascalCase registrations give Claude-compatible payloads and go through the Claude mapping.
import { claudeLike, keptFromSubagent, sessionEndFact, sessionStartFact } from './claude-like.js';
import { isObj, normEvent, str, bool, type HookFact } from './types.js';

function inferEvent(p: Record<string, unknown>): string | undefined {
  if (p['notification_type'] !== undefined || p['notificationType'] !== undefined) return 'notification';
  if (p['stopReason'] !== undefined && (p['agentName'] !== undefined || p['agentId'] !== undefined)) return 'subagentStop';
  if (p['agentName'] !== undefined) return 'subagentStart';
  if (p['stopReason'] !== undefined || p['stop_reason'] !== undefined) return 'agentStop';
  if (p['toolResult'] !== undefined) return 'postToolUse';
  if (p['errorContext'] !== undefined || p['recoverable'] !== undefined) return 'errorOccurred';
  if (p['toolName'] !== undefined && p['error'] !== undefined) return 'postToolUseFailure';
  if (p['prompt'] !== undefined) return 'userPromptSubmitted';
  if (p['trigger'] !== undefined) return 'preCompact';
  if (p['source'] !== undefined) return 'sessionStart';
  if (p['reason'] !== undefined) return 'sessionEnd';
  return undefined; // preToolUse vs permissionRequest cannot be told apart: ignore
}

export function mapCopilot(payload: unknown, eventHint?: string): HookFact | null {
  try {
    if (!isObj(payload)) return null;
    const named = str(payload, 'hook_event_name', 'hookEventName') ?? eventHint;
    const event = named ?? inferEvent(payload);
    if (event === undefined) return null;
    const ev = normEvent(event);
    const base: HookFact = { kind: 'tool', agent: 'copilot', event };
    const conversationId = str(payload, 'sessionId', 'session_id');
    if (conversationId !== undefined) base.conversationId = conversationId;
    const subId = str(payload, 'agentId', 'agent_id');
    const fromSubagent = subId !== undefined || str(payload, 'parentAgentId') !== undefined;

    let fact: HookFact | null = null;
    switch (ev) {
      case 'sessionstart':
        return sessionStartFact(base, payload);
      case 'subagentstart':
        return { ...base, kind: 'subagent-start', ...(subId ? { subagentId: subId } : {}), detail: str(payload, 'agentName', 'agentType') ?? 'subagent' };
      case 'subagentstop':
        return { ...base, kind: 'subagent-stop', ...(subId ? { subagentId: subId } : {}), detail: str(payload, 'agentName', 'agentType') ?? 'subagent' };
      case 'userpromptsubmitted':
        fact = { ...base, kind: 'prompt-submit' };
        break;
      case 'posttooluse':
      case 'posttoolusefailure':
      case 'precompact': {
        const tool = str(payload, 'toolName', 'tool_name');
        fact = { ...base, kind: 'tool', ...(tool ? { detail: tool } : {}) };
        break;
      }
      case 'pretooluse':
        // Registered only if the user insists (it is fail-closed); still activity.
        fact = { ...base, kind: 'tool' };
        break;
      case 'permissionrequest':
        // Fires before rules/auto-approval, i.e. also for calls that never show a dialog: activity only.
        fact = { ...base, kind: 'tool', detail: 'permissionRequest' };
        break;
      case 'notification': {
        const type = (str(payload, 'notification_type', 'notificationType') ?? '').toLowerCase();
        if (type === 'permission_prompt') fact = { ...base, kind: 'permission', detail: type };
        else if (type === 'elicitation_dialog') fact = { ...base, kind: 'question', detail: type };
        else return null; // shell_completed, agent_idle (background agents), agent_completed …
        break;
      }
      case 'agentstop':
      case 'stop':
        fact = { ...base, kind: 'turn-end', backgroundTasks: 0, subagentsRunning: 0 };
        break;
      case 'erroroccurred':
        if (bool(payload, 'recoverable') === true) return null;
        fact = { ...base, kind: 'turn-end', error: true, backgroundTasks: 0, subagentsRunning: 0 };
        break;
      case 'sessionend':
        fact = sessionEndFact(base, payload);
        break;
      default:
        // PascalCase Claude-compatible events (UserPromptSubmit, PreToolUse, Stop …)
        return claudeLike('copilot', payload, eventHint);
    }
    return fromSubagent ? keptFromSubagent(fact) : fact;
  } catch { return null; }
}
