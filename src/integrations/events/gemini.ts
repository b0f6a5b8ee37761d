// Gemini CLI hooks (BeforeAgent/AfterAgent/BeforeTool/AfterTool/Notification/…; snake_case payloads).
// Seen offline with 0.61.0 (test/fixtures/hooks/gemini-0.61.0.jsonl): Notification ToolPermission comes
// for the shell prompt (details.type "exec") and for ask_user (details.type "ask_user"); a subagent is
// the tool invoke_agent, its BeforeTool/AfterTool bracket the child's run; a deny with Esc fires nothing,
// an interrupt fires AfterAgent; PreCompress fires before every model call.
// AfterAgent's payload is the same for an interrupted turn (its prompt_response the text so far) as
// for a finished one. The transcript tells: Gemini writes {"type":"info","content":"Request
// cancelled."} into it just before the hook runs (test/fixtures/hooks/gemini-0.61.0-transcript-*.jsonl).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isObj, normEvent, sessionSource, str, type HookFact } from './types.js';

/** How much of a transcript's end is read: its last entries (one message can be long). */
const TAIL_BYTES = 64 * 1024;

/**
 * A Gemini turn end whose transcript ends in "Request cancelled." is an interrupt (its AfterAgent
 * payload cannot tell). Not pure: reads the transcript's tail.
 */
export function refineGemini(fact: HookFact): HookFact {
  if (fact.kind === 'turn-end' && fact.transcript && geminiTurnCancelled(fact.transcript.path, fact.transcript.at)) {
    const { transcript: _t, backgroundTasks: _b, subagentsRunning: _s, ...rest } = fact;
    return { ...rest, kind: 'interrupt', detail: 'Request cancelled.' };
  }
  return fact;
}

/**
 * Whether the last message in a Gemini transcript (`chats/session-*.jsonl`) up to `at` (an ISO
 * time; default: the end) is Gemini's "Request cancelled." note: the turn was interrupted. Reads at
 * most the file's last 64 KiB; a file it cannot read or parse says no.
 */
export function geminiTurnCancelled(file: string, at?: string): boolean {
  let fd: number | undefined;
  try {
    // non-blocking: a path that names a FIFO must not hold the supervisor (it is then not a file)
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) return false;
    const len = Math.min(st.size, TAIL_BYTES);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, st.size - len);
    const lines = buf.toString('utf8').split('\n');
    if (len < st.size) lines.shift(); // a cut first line
    const limit = at !== undefined ? Date.parse(at) : NaN;
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!.trim();
      if (line === '') continue;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        continue;
      }
      // messages have an id and a type; {"$set": …} lines update the header
      if (!isObj(entry) || typeof entry['type'] !== 'string' || typeof entry['id'] !== 'string') continue;
      const when = typeof entry['timestamp'] === 'string' ? Date.parse(entry['timestamp']) : NaN;
      if (!Number.isNaN(limit) && !Number.isNaN(when) && when > limit) continue; // written after the hook
      return entry['type'] === 'info' && entry['content'] === 'Request cancelled.';
    }
    return false;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

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
      case 'afteragent': {
        const transcript = str(payload, 'transcript_path', 'transcriptPath');
        const at = str(payload, 'timestamp');
        return { ...base, kind: 'turn-end', backgroundTasks: 0, subagentsRunning: 0, ...(transcript ? { transcript: { path: transcript, ...(at ? { at } : {}) } } : {}) };
      }
      case 'sessionend': {
        const reason = str(payload, 'reason');
        return { ...base, kind: 'session-end', ...(reason ? { reason } : {}) };
      }
      default:
        return null; // AfterModel, BeforeToolSelection: noise within a turn
    }
  } catch { return null; }
}
