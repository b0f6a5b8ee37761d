// Real hook payloads of Gemini CLI 0.61.0, recorded offline (test/fixtures/hooks/gemini-0.61.0.jsonl:
// one {case, payload} per line, the case naming the event and what had happened).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mapHookPayload } from '../../../src/integrations/events/index.js';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/hooks/gemini-0.61.0.jsonl');
const cases = new Map(
  readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
    const o = JSON.parse(l) as { case: string; payload: Record<string, unknown> };
    return [o.case, o.payload] as const;
  }),
);

const EXPECTED: Record<string, string | null> = {
  'SessionStart-startup': 'session-start',
  'SessionStart-resume': 'session-start',
  'SessionStart-with-session-id-flag': 'session-start',
  'BeforeAgent-prompt-submit': 'prompt-submit',
  'PreCompress-auto-every-model-call': 'tool',
  // BeforeTool fires before the permission prompt: activity, not "running"
  'BeforeTool-run_shell_command-before-permission': 'tool',
  'Notification-ToolPermission-shell': 'permission',
  'BeforeTool-ask_user': 'tool',
  'Notification-ToolPermission-ask_user': 'question',
  'AfterTool-run_shell_command-after-approval': 'tool',
  'AfterTool-ask_user-answered': 'tool',
  'AfterAgent-end-of-turn': 'turn-end',
  // an interrupt also ends with AfterAgent (the payload cannot tell it from a finished turn)
  'AfterAgent-after-esc-interrupt-streaming': 'turn-end',
  'AfterAgent-after-esc-interrupt-before-first-token': 'turn-end',
  'AfterAgent-after-ctrl-c-interrupt': 'turn-end',
  'BeforeTool-invoke_agent-subagent': 'subagent-start',
  'BeforeTool-complete_task-inside-subagent': 'tool',
  'AfterTool-invoke_agent-subagent': 'subagent-stop',
  'SessionEnd-exit': 'session-end',
};

describe('Gemini CLI 0.61.0 real hook payloads', () => {
  it('every recorded case is covered here', () => {
    expect([...cases.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
  });
  for (const [name, kind] of Object.entries(EXPECTED)) {
    it(`${name} → ${kind}`, () => {
      const payload = cases.get(name)!;
      const fact = mapHookPayload('gemini', payload, String(payload['hook_event_name']));
      expect(fact?.kind ?? null).toBe(kind);
      if (fact) expect(fact.conversationId).toBe(payload['session_id']);
    });
  }
  it('a subagent is named by its agent', () => {
    expect(mapHookPayload('gemini', cases.get('BeforeTool-invoke_agent-subagent'))?.detail).toBe('generalist');
  });
});
