// Every agent nerdr starts, one AgentIntegration each (types.ts): the one place the rest of
// nerdr asks what an agent needs. A Record over AgentId, so an agent without its object, or an
// object without a field, does not compile.

import { agentLabel } from '../labels.js';
import { agy } from './agy.js';
import { amp } from './amp.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { copilot } from './copilot.js';
import { cursor } from './cursor.js';
import { demo } from './demo.js';
import { droid } from './droid.js';
import { gemini } from './gemini.js';
import { grok } from './grok.js';
import { omp } from './omp.js';
import { opencode } from './opencode.js';
import { kilo } from './kilo.js';
import { pi } from './pi.js';
import { qwen } from './qwen.js';
import { AGENT_IDS, SCREEN_ONLY, type AgentId, type AgentIntegration } from './types.js';
import type { AgentWiring } from './modes.js';

export * from './types.js';

export const INTEGRATIONS: Readonly<Record<AgentId, AgentIntegration>> = {
  claude,
  codex,
  opencode,
  kilo,
  copilot,
  gemini,
  qwen,
  cursor,
  agy,
  grok,
  amp,
  droid,
  pi,
  omp,
  demo,
};

export function isAgentId(name: string): name is AgentId {
  return (AGENT_IDS as readonly string[]).includes(name);
}

/**
 * The integration of an agent by its id (`nerdr new claude`, a window's recorded agent), or of
 * one of the names herdr knows it by (labels.ts: `claude-code`, `ghcs`, …); undefined for a
 * program nerdr does not start.
 */
export function integrationFor(name: string): AgentIntegration | undefined {
  if (isAgentId(name)) return INTEGRATIONS[name];
  const label = agentLabel(name);
  return label !== null && isAgentId(label) ? INTEGRATIONS[label] : undefined;
}

/** How an agent's hooks can be wired; screen only for anything without an integration. */
export function wiringFor(agent: string): AgentWiring {
  return integrationFor(agent)?.wiring ?? SCREEN_ONLY;
}

/** Modes `nerdr integrations install` can write files for (home/worktree). */
export function installableModes(agent: string): ('home' | 'worktree')[] {
  return wiringFor(agent).modes.filter((m): m is 'home' | 'worktree' => m === 'home' || m === 'worktree');
}

/** Arguments that resume conversation `id`; undefined when the agent cannot, or the id could pass for a flag. */
export function resumeArgs(agent: string, conversationId: string): string[] | undefined {
  if (conversationId.startsWith('-') || /[\u0000-\u001f]/.test(conversationId)) return undefined;
  return integrationFor(agent)?.resume?.args(conversationId);
}

/** "Newest conversation in this folder" arguments, where the agent has them. */
export function continueArgs(agent: string): string[] | undefined {
  return integrationFor(agent)?.resume?.continue ?? undefined;
}
