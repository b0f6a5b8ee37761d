// The agents `nerdr new <agent>` accepts, by name, and how to install them (for messages).
// Each agent's knowledge is its AgentIntegration (index.ts); this is the lookup by user text.

import { INTEGRATIONS, type AgentIntegration } from './index.js';

export type AgentSpec = AgentIntegration;

/** By name; undefined for a name that is not an agent nerdr starts. */
export const AGENTS: Readonly<Record<string, AgentSpec>> = INTEGRATIONS;

export function knownAgents(): string[] {
  return Object.keys(INTEGRATIONS);
}

/** How to install an agent, for messages: the npm command where it comes from npm. */
export function installHint(spec: AgentSpec): string {
  return spec.npm ? `install it: npm install -g ${spec.npm}` : `install ${spec.description} as its documentation says, so that \`${spec.command[0]}\` is on PATH`;
}
