// Shared mapping for agents whose hooks follow Claude Code's event names and fields
// (Claude Code, Codex, Grok Build, and Copilot's PascalCase mode). Field names are read
// in snake_case and camelCase, so Grok's camelCase payloads go through the same code.
import {
  countBackground, isObj, normEvent, sessionSource, str, bool,
  type HookFact,
} from './types.js';

const QUESTION_TOOLS = new Set(['askuserquestion', 'ask_user_question', 'askuser', 'question']);
const WAKEUP_SOURCES = new Set(['loop_wakeup', 'schedule_wakeup', 'poll_event', 'system', 'schedule']);

export function claudeLike(agent: string, payload: unknown, eventHint?: string): HookFact | null {
  if (!isObj(payload)) return null;
  const event = str(payload, 'hook_event_name', 'hookEventName') ?? eventHint;
  if (event === undefined) return null;
  const ev = normEvent(event);
  const conversationId = str(payload, 'session_id', 'sessionId');
  // agent_id is present only on events raised inside a subagent (absent on the main thread).
  const agentId = str(payload, 'agent_id', 'agentId');
  const base: HookFact = { kind: 'tool', agent, event };
  if (conversationId !== undefined) base.conversationId = conversationId;
  const toolName = str(payload, 'tool_name', 'toolName');

  // Subagent lifecycle is counted; its agent_id names the subagent itself.
  if (ev === 'subagentstart') return { ...base, kind: 'subagent-start', ...(agentId ? { subagentId: agentId } : {}), detail: str(payload, 'agent_type', 'agentType') ?? 'subagent' };
  if (ev === 'subagentstop') return { ...base, kind: 'subagent-stop', ...(agentId ? { subagentId: agentId } : {}), detail: str(payload, 'agent_type', 'agentType') ?? 'subagent' };

  const fromSubagent = agentId !== undefined;
  let fact: HookFact | null = null;
  switch (ev) {
    case 'sessionstart':
      fact = sessionStartFact(base, payload);
      if (fact === null) return null;
      break;
    case 'userpromptsubmit': {
      const src = str(payload, 'source')?.toLowerCase();
      fact = { ...base, kind: 'prompt-submit' };
      if (src !== undefined && WAKEUP_SOURCES.has(src)) fact.scheduled = true;
      break;
    }
    case 'pretooluse':
      fact = { ...base, kind: toolName && QUESTION_TOOLS.has(toolName.toLowerCase()) ? 'question' : 'tool' };
      if (toolName) fact.detail = toolName;
      break;
    case 'posttooluse':
    case 'posttoolbatch':
    case 'permissiondenied': // auto-mode denial: the agent carries on
    case 'precompact':
      fact = { ...base, kind: 'tool', ...(toolName ? { detail: toolName } : ev === 'precompact' ? { detail: 'compact' } : {}) };
      break;
    case 'posttoolusefailure':
      // is_interrupt: the user stopped the tool (Esc) — the turn is over.
      fact = bool(payload, 'is_interrupt', 'isInterrupt') === true
        ? { ...base, kind: 'interrupt', ...(toolName ? { detail: toolName } : {}) }
        : { ...base, kind: 'tool', ...(toolName ? { detail: toolName } : {}) };
      break;
    case 'permissionrequest':
      fact = { ...base, kind: toolName && QUESTION_TOOLS.has(toolName.toLowerCase()) ? 'question' : 'permission' };
      if (toolName) fact.detail = toolName;
      break;
    case 'notification': {
      const type = (str(payload, 'notification_type', 'notificationType') ?? '').toLowerCase();
      const message = str(payload, 'message') ?? '';
      if (type === 'permission_prompt' || type === 'worker_permission_prompt') fact = { ...base, kind: 'permission', detail: type };
      else if (type === 'elicitation_dialog' || type === 'agent_needs_input') fact = { ...base, kind: 'question', detail: type };
      else if (type === 'idle_prompt') fact = { ...base, kind: 'notification-idle', detail: type };
      else if (type === '' && /permission/i.test(message)) fact = { ...base, kind: 'permission', detail: message.slice(0, 80) };
      else return null;
      break;
    }
    case 'stop':
    case 'stopfailure': {
      const bg = countBackground(payload['background_tasks'] ?? payload['backgroundTasks']);
      fact = { ...base, kind: 'turn-end', backgroundTasks: bg.tasks, subagentsRunning: bg.subagents };
      if (ev === 'stopfailure') {
        fact.error = true;
        const type = str(payload, 'error');
        const message = str(payload, 'last_assistant_message', 'lastAssistantMessage') ?? str(payload, 'error_details', 'errorDetails');
        if (type !== undefined || message !== undefined) fact.failure = { type: type ?? null, message: message?.slice(0, 2000) ?? null };
      }
      break;
    }
    case 'interrupt':
      fact = { ...base, kind: 'interrupt' };
      break;
    case 'sessionend':
      fact = sessionEndFact(base, payload);
      break;
    default:
      return null;
  }
  return fromSubagent ? keptFromSubagent(fact) : fact;
}

/** A session start; null after compaction, which is the same conversation going on. */
export function sessionStartFact(base: HookFact, payload: Record<string, unknown>): HookFact | null {
  const source = sessionSource(str(payload, 'source'));
  if (source === 'compact') return null;
  return { ...base, kind: 'session-start', source: source ?? 'startup' };
}

/** A session end, with the reason the agent gives. */
export function sessionEndFact(base: HookFact, payload: Record<string, unknown>): HookFact {
  const reason = str(payload, 'reason');
  return { ...base, kind: 'session-end', ...(reason ? { reason } : {}) };
}

/** A subagent's own events are ignored, except the dialogs it opens in the main UI. */
export function keptFromSubagent(fact: HookFact): HookFact | null {
  if (fact.kind !== 'permission' && fact.kind !== 'question') return null;
  return { ...fact, subagent: true };
}
