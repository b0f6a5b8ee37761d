// The agent CLIs the conformance suite drives: the versions real-agents.md proved offline.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENTS } from '../../src/integrations/agents.js';

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

/** From nerdr's own agent table (src/integrations/agents.ts): each agent's package and pinned version. */
export const AGENT_PACKAGES: AgentPackage[] = ['claude', 'codex', 'opencode', 'gemini', 'copilot'].map((agent) => {
  const spec = AGENTS[agent]!;
  return { agent, pkg: spec.npm!, version: spec.proven![0]!, bin: spec.command[0]! };
});

export interface InstallStatus {
  ok: boolean;
  version: string;
  /** Why the agent cannot be driven (printed as the skip reason). */
  reason?: string;
}

export type InstallReport = Record<string, InstallStatus>;
