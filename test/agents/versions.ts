// The agent CLIs the conformance suite drives: the versions real-agents.md proved offline.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** npm installs here (git-ignored through .cache/). */
export const CACHE_DIR = path.join(REPO_ROOT, '.cache', 'agents');
export const BIN_DIR = path.join(CACHE_DIR, 'node_modules', '.bin');
/** Scratch folders of each run (HOME, project, nerdr state); emptied when the suite starts. */
export const RUNS_DIR = path.join(CACHE_DIR, 'runs');
export const SCREENS_DIR = path.join(REPO_ROOT, 'test', 'agents', 'screens');
export const RESULTS_DIR = path.join(REPO_ROOT, 'test', 'agents', 'results');

export interface AgentPackage {
  /** nerdr's agent name (`nerdr new <agent>`). */
  agent: string;
  pkg: string;
  version: string;
  bin: string;
}

export const AGENT_PACKAGES: AgentPackage[] = [
  { agent: 'claude', pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
  { agent: 'codex', pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  { agent: 'opencode', pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  { agent: 'gemini', pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  { agent: 'copilot', pkg: '@github/copilot', version: '1.0.102', bin: 'copilot' },
];

export interface InstallStatus {
  ok: boolean;
  version: string;
  /** Why the agent cannot be driven (printed as the skip reason). */
  reason?: string;
}

export type InstallReport = Record<string, InstallStatus>;
