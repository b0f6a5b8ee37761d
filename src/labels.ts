// Agent labels and their aliases (hard-coded as in herdr, 22 agents). One table
// for process identification, manifest lookup, herdr reports and the arbiter.

/** Canonical label → accepted names. */
export const AGENT_ALIASES: Readonly<Record<string, readonly string[]>> = {
  pi: ['pi'],
  claude: ['claude', 'claude-code'],
  codex: ['codex'],
  gemini: ['gemini'],
  cursor: ['cursor', 'cursor-agent'],
  devin: ['devin', 'devin-cli', 'devin cli'],
  agy: ['agy', 'antigravity', 'antigravity-cli'],
  cline: ['cline'],
  omp: ['omp'],
  mastracode: ['mastracode', 'mastra-code', 'mastra code'],
  opencode: ['opencode', 'opencode2', 'open-code'],
  copilot: ['copilot', 'github-copilot', 'ghcs'],
  kimi: ['kimi', 'kimi-code', 'kimi code'],
  kiro: ['kiro', 'kiro-cli'],
  droid: ['droid'],
  amp: ['amp', 'amp-local'],
  grok: ['grok', 'grok-build'],
  hermes: ['hermes', 'hermes-agent'],
  kilo: ['kilo', 'kilo-code', 'kilo code'],
  qodercli: ['qodercli', 'qoderclicn', 'qoder', 'qodercn'],
  qwen: ['qwen', 'qwen-code', 'qwen code'],
  maki: ['maki'],
};

export const KNOWN_AGENTS: ReadonlySet<string> = new Set(Object.keys(AGENT_ALIASES));

const NAME_TO_LABEL = new Map<string, string>();
for (const [label, names] of Object.entries(AGENT_ALIASES)) for (const n of names) NAME_TO_LABEL.set(n, label);

/** Lookup key: trimmed, lower-cased, one trailing .exe/.cmd/.bat/.ps1/.js removed. */
export function agentKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\.(exe|cmd|bat|ps1|js)$/, '');
}

/** The canonical label of a known agent name, or null (`node`, `bash`, `vim` …). */
export function agentLabel(name: string): string | null {
  return NAME_TO_LABEL.get(agentKey(name)) ?? null;
}

/** herdr's canonicalisation: a known name becomes its label; anything else is kept, trimmed. */
export function canonicalAgent(label: string): string {
  return agentLabel(label) ?? label.trim();
}
