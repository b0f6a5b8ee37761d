// Agent labels and their aliases: herdr's 22, and any agent nerdr starts that herdr does not know.
// One table for process identification, manifest lookup, herdr reports and the arbiter. The agents
// nerdr starts bring their own names (their integration's `aliases`); herdr's others are here.

import { INTEGRATIONS, agentKey } from './integrations/index.js';

export { agentKey };

/** herdr's agents that nerdr does not start: label → accepted names. */
const HERDR_ONLY_ALIASES: Readonly<Record<string, readonly string[]>> = {
  devin: ['devin', 'devin-cli', 'devin cli'],
  cline: ['cline'],
  mastracode: ['mastracode', 'mastra-code', 'mastra code'],
  kimi: ['kimi', 'kimi-code', 'kimi code'],
  kiro: ['kiro', 'kiro-cli'],
  hermes: ['hermes', 'hermes-agent'],
  qodercli: ['qodercli', 'qoderclicn', 'qoder', 'qodercn'],
  maki: ['maki'],
};

/** Canonical label → accepted names. */
export const AGENT_ALIASES: Readonly<Record<string, readonly string[]>> = {
  ...Object.fromEntries(Object.values(INTEGRATIONS).filter((i) => i.aliases.length > 0).map((i) => [i.id, i.aliases])),
  ...HERDR_ONLY_ALIASES,
};

export const KNOWN_AGENTS: ReadonlySet<string> = new Set(Object.keys(AGENT_ALIASES));

const NAME_TO_LABEL = new Map<string, string>();
for (const [label, names] of Object.entries(AGENT_ALIASES)) for (const n of names) NAME_TO_LABEL.set(n, label);

/** The canonical label of a known agent name, or null (`node`, `bash`, `vim` …). */
export function agentLabel(name: string): string | null {
  return NAME_TO_LABEL.get(agentKey(name)) ?? null;
}

/** herdr's canonicalisation: a known name becomes its label; anything else is kept, trimmed. */
export function canonicalAgent(label: string): string {
  return agentLabel(label) ?? label.trim();
}
