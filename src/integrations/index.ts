// Every agent nerdr starts, one AgentIntegration each (types.ts): the one place the rest of
// nerdr asks what an agent needs, and the table every other list of agents is derived from (the
// ids here; hooked agents in events/index.ts; herdr's names in labels.ts; npm packages in
// detect/identify.ts; report rules in state/reports.ts; status files in supervisor/agent-status.ts).
// Nothing in integrations/ imports those: the dependency runs one way, towards this folder.
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
import { SCREEN_ONLY, type AgentIntegration } from './types.js';
import type { AgentWiring } from './modes.js';

export * from './types.js';

export const INTEGRATIONS = {
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
} as const satisfies Readonly<Record<string, AgentIntegration>>;

/** The agents `nerdr new` starts. */
export type AgentId = keyof typeof INTEGRATIONS;

export const AGENT_IDS = Object.keys(INTEGRATIONS) as AgentId[];

/** Lookup key of an agent's name: trimmed, lower-cased, one trailing .exe/.cmd/.bat/.ps1/.js removed. */
export function agentKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\.(exe|cmd|bat|ps1|js)$/, '');
}

const BY_ALIAS = new Map<string, AgentIntegration>();
for (const integration of Object.values(INTEGRATIONS)) for (const name of integration.aliases) BY_ALIAS.set(name, integration);

export function isAgentId(name: string): name is AgentId {
  return (AGENT_IDS as readonly string[]).includes(name);
}

/**
 * The integration of an agent by its id (`nerdr new claude`, a window's recorded agent), or of
 * one of the names herdr knows it by (its `aliases`: `claude-code`, `ghcs`, …); undefined for a
 * program nerdr does not start.
 */
export function integrationFor(name: string): AgentIntegration | undefined {
  if (isAgentId(name)) return INTEGRATIONS[name];
  return BY_ALIAS.get(agentKey(name));
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
