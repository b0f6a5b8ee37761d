// How nerdr starts an agent: the argv, extra environment and files that hand the agent nerdr's hooks
// for this launch only (agent-hooks.md), or the home/worktree files the user opted into.
// One file per agent (claude.ts, codex.ts, …); this one resolves config and dispatches.

import { NerdrError } from '../errors.js';
import { AGENTS } from './agents.js';
import { agentConfig, type NerdrConfig } from '../config.js';
import { wiringFor, type InstallMode } from './modes.js';
import { planClaude } from './claude.js';
import { planCodex, type CodexAppServer } from './codex.js';
import { planOpencode } from './opencode.js';
import { planCopilot } from './copilot.js';
import { planGemini } from './gemini.js';
import { planAgy } from './agy.js';
import { planGrok } from './grok.js';

export interface LaunchContext {
  stateDir: string;
  configDir: string;
  packageRoot: string;
  /** Absolute path of nerdr's executable (bin/nerdr.js); hook commands run it. */
  nerdrBin: string;
  /** The agent's working folder (absolute). */
  cwd: string;
  /** false for `nerdr new --no-hooks`. */
  hooks: boolean;
  windowId?: string;
  config: NerdrConfig;
  /** The environment the agent will inherit (default process.env): HOME, CODEX_HOME, the user's OPENCODE_CONFIG_DIR … */
  env?: NodeJS.ProcessEnv;
  /** Codex only: how to reach `codex app-server` (tests pass a fake). */
  codexAppServer?: CodexAppServer;
}

export interface LaunchPlan {
  /** Program and arguments, ready for tmux (no shell). */
  argv: string[];
  /** Extra environment for the window, on top of the NERDR_ and HERDR_ variables the supervisor sets. */
  env: Record<string, string>;
  /** The conversation id when nerdr knows it before the first hook (Claude, Copilot, Gemini --session-id). */
  conversationId?: string;
  /** Human notes: why hooks are not wired, what the user must accept, … (for the log / `nerdr new`). */
  notes: string[];
  /** How hooks reach the agent in this launch. */
  wiring: InstallMode;
  /** Files nerdr wrote or relies on for this launch. */
  files: string[];
}

/** What the per-agent planners get. */
export interface PlanInput {
  agent: string;
  /** Program (+ fixed args) from config `command` or the AGENTS table. */
  command: string[];
  /** Config `args` then the user's arguments. */
  args: string[];
  /** Effective mode: 'off' when hooks are disabled for this launch. */
  mode: InstallMode;
  ctx: LaunchContext;
  env: NodeJS.ProcessEnv;
  notes: string[];
}

type Planner = (p: PlanInput) => Promise<LaunchPlan> | LaunchPlan;

const PLANNERS: Record<string, Planner> = {
  claude: planClaude,
  codex: planCodex,
  opencode: planOpencode,
  copilot: planCopilot,
  gemini: planGemini,
  agy: planAgy,
  grok: planGrok,
};

export async function launchPlan(agent: string, userArgs: string[], ctx: LaunchContext): Promise<LaunchPlan> {
  const spec = AGENTS[agent];
  if (!spec) throw new NerdrError(`unknown agent "${agent}"`, `known agents: ${Object.keys(AGENTS).join(', ')}`);
  const ac = agentConfig(ctx.config, agent);
  const command = ac.command ?? spec.command;
  const args = [...ac.args, ...userArgs];
  const notes: string[] = [];
  let mode: InstallMode = ac.install;
  if (!wiringFor(agent).modes.includes(mode)) mode = wiringFor(agent).default;
  if (!ctx.hooks) {
    if (mode !== 'off') notes.push('hooks not wired (--no-hooks): read from the screen only');
    mode = 'off';
  } else if (!ac.hooks) {
    if (mode !== 'off') notes.push(`hooks not wired (agents.${agent}.hooks = false): read from the screen only`);
    mode = 'off';
  }
  const planner = PLANNERS[agent];
  if (!planner) return { argv: [...command, ...args], env: {}, notes, wiring: 'off', files: [] };
  return planner({ agent, command, args, mode, ctx, env: ctx.env ?? process.env, notes });
}

/** User arguments that resume a conversation, per agent (integration-protocol.md §4). */
export function resumeArgs(agent: string, conversationId: string): string[] | undefined {
  if (conversationId.startsWith('-') || /[\u0000-\u001f]/.test(conversationId)) return undefined;
  switch (agent) {
    case 'claude': return ['--resume', conversationId];
    case 'codex': return ['resume', conversationId];
    case 'copilot': return [`--resume=${conversationId}`];
    case 'gemini': return ['--resume', conversationId];
    case 'opencode': return ['--session', conversationId];
    case 'agy': return ['--conversation', conversationId];
    case 'grok': return ['--resume', conversationId];
    case 'cursor': return ['--resume', conversationId];
    case 'droid': return ['--resume', conversationId];
    // herdr's resume table: pi takes a session file or an id; omp has no --session
    case 'pi': return ['--session', conversationId];
    case 'omp': return [`--resume=${conversationId}`];
    default: return undefined;
  }
}

/** "Newest conversation in this folder" arguments, where the agent has them. */
export function continueArgs(agent: string): string[] | undefined {
  switch (agent) {
    case 'claude': return ['--continue'];
    case 'codex': return ['resume', '--last'];
    case 'copilot': return ['--continue'];
    case 'opencode': return ['--continue'];
    case 'agy': return ['--continue'];
    case 'gemini': return ['--resume', 'latest'];
    default: return undefined;
  }
}
