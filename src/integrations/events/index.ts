// Dispatch a raw hook payload to the agent's mapper. Pure; never throws.
export * from './types.js';
import { mapAgy } from './agy.js';
import { mapClaude } from './claude.js';
import { mapCodex, mapCodexNotify } from './codex.js';
import { mapCopilot } from './copilot.js';
import { geminiTurnCancelled, mapGemini } from './gemini.js';
import { mapGrok } from './grok.js';
import { mapKilo, mapOpencode } from './opencode.js';
import { mapPi } from './pi.js';
import { mapQwen } from './qwen.js';
import type { HookFact, HookMapper } from './types.js';
import { integrationFor } from '../index.js';

export { mapAgy, mapClaude, mapCodex, mapCodexNotify, mapCopilot, mapGemini, mapGrok, mapKilo, mapOpencode, mapPi, mapQwen };

/**
 * The mapper of an agent (its integration's `hooks.map`), by id or by any name herdr knows it by
 * (labels.ts); undefined when the agent has no hook mapping.
 */
export function hookMapperFor(agent: string): HookMapper | undefined {
  return integrationFor(agent.trim().toLowerCase())?.hooks?.map;
}

/**
 * Turn the JSON an agent's hook wrote to stdin into a normalised fact.
 * `eventHint` is the event name when the hook command passes it as an argument
 * (needed for Copilot camelCase and agy payloads, which carry no event-name field).
 * Returns null for unknown agents, events nerdr ignores, and malformed payloads.
 */
export function mapHookPayload(agent: string, payload: unknown, eventHint?: string): HookFact | null {
  const m = hookMapperFor(agent);
  if (m === undefined) return null;
  try { return m(payload, eventHint); } catch { return null; }
}

/**
 * A fact with what its payload could not say, from the agent's own files: a Gemini turn end whose
 * transcript ends in "Request cancelled." is an interrupt. Not pure (reads the transcript's tail);
 * the supervisor calls it once per turn end.
 */
export function refineFact(fact: HookFact): HookFact {
  if (fact.kind === 'turn-end' && fact.agent === 'gemini' && fact.transcript && geminiTurnCancelled(fact.transcript.path, fact.transcript.at)) {
    const { transcript: _t, backgroundTasks: _b, subagentsRunning: _s, ...rest } = fact;
    return { ...rest, kind: 'interrupt', detail: 'Request cancelled.' };
  }
  return fact;
}
