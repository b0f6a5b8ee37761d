// Real hook payloads of Copilot CLI 1.0.102, recorded offline (test/fixtures/hooks/copilot-1.0.102.jsonl:
// one {event, payload} per line, in order): a turn with a shell approval, a question, a denied
// permission, an interrupted turn (no hook), a foreground subagent, and the window killed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mapHookPayload } from '../../../src/integrations/events/index.js';
import { COPILOT_EVENTS } from '../../../src/integrations/copilot.js';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/hooks/copilot-1.0.102.jsonl');
const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; payload: Record<string, unknown> });
const MAIN = lines[0]!.payload['sessionId'];
// nerdr registers these events only (preToolUse is fail-closed, permissionRequest fires for auto-approved calls too)
const registered = new Set(COPILOT_EVENTS.map((e) => e.event));

describe('Copilot CLI 1.0.102 real hook payloads', () => {
  const facts = lines.filter((l) => registered.has(l.event)).map((l) => ({ event: l.event, fact: mapHookPayload('copilot', l.payload, l.event) }));

  it('map to the turn as a person saw it', () => {
    expect(facts.map((f) => f.fact?.kind ?? `(${f.event} dropped)`)).toEqual([
      'session-start', 'prompt-submit', 'permission', 'tool', 'turn-end', // RUN_BASH, approved
      'prompt-submit', 'question', 'tool', 'turn-end', // ASK_QUESTION, answered
      'prompt-submit', 'permission', // RUN_BASH, denied with Esc: no hook after the dialog
      'prompt-submit', // SLOW, interrupted: no hook either
      'prompt-submit', 'subagent-start', '(userPromptSubmitted dropped)', '(agentStop dropped)', 'subagent-stop', 'tool', 'turn-end', // SUBAGENT
      'session-end',
    ]);
  });

  it('every kept fact names the main conversation; the subagent\'s own turn is dropped', () => {
    for (const { fact } of facts) if (fact) expect(fact.conversationId).toBe(MAIN);
    const child = lines.filter((l) => l.payload['agentId'] !== undefined && l.payload['sessionId'] !== MAIN);
    expect(child.map((l) => l.event)).toEqual(['userPromptSubmitted', 'agentStop']);
  });

  it('without the event hint the camelCase payloads are still recognised', () => {
    const byEvent = (e: string) => lines.find((l) => l.event === e)!.payload;
    expect(mapHookPayload('copilot', byEvent('notification'))?.kind).toBe('permission');
    expect(mapHookPayload('copilot', byEvent('agentStop'))?.kind).toBe('turn-end');
    expect(mapHookPayload('copilot', byEvent('userPromptSubmitted'))?.kind).toBe('prompt-submit');
  });
});
