// Dispatch a raw hook payload to the agent's mapper (its integration's `hooks.map`; each lives in
// events/<agent>.ts). Pure; never throws.
export * from './types.js';
import type { HookFact, HookMapper } from './types.js';
import { INTEGRATIONS, integrationFor } from '../index.js';

/** The agents whose hooks or plugin report to nerdr: those whose integration maps hook payloads. */
export const HOOK_AGENTS: readonly string[] = Object.values(INTEGRATIONS).filter((i) => i.hooks !== null).map((i) => i.id);

/**
 * The mapper of an agent (its integration's `hooks.map`), by id or by any name herdr knows it by
 * (its `aliases`); undefined when the agent has no hook mapping.
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
 * A fact with what its payload could not say, from the agent's own files (its integration's
 * `hooks.refine`: Gemini's cancelled turn). Not pure; the supervisor calls it once per fact.
 */
export function refineFact(fact: HookFact): HookFact {
  const refine = integrationFor(fact.agent)?.hooks?.refine;
  return refine ? refine(fact) : fact;
}
