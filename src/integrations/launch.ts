// How nerdr starts an agent: the argv, extra environment and files that hand the agent nerdr's hooks
// for this launch only, or the home/worktree files the user opted into (docs/agents.md). Each
// agent's planner is its integration's `plan` (claude.ts, codex.ts, …); this one resolves config
// and dispatches.

import { NerdrError } from '../errors.js';
import { agentConfig, type NerdrConfig } from '../config.js';
import type { InstallMode } from './modes.js';
import type { CodexAppServer } from './codex.js';
import { INTEGRATIONS, isAgentId } from './index.js';

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
  /** Program (+ fixed args) from config `command` or the integration's. */
  command: string[];
  /** Config `args` then the user's arguments. */
  args: string[];
  /** Effective mode: 'off' when hooks are disabled for this launch. */
  mode: InstallMode;
  ctx: LaunchContext;
  env: NodeJS.ProcessEnv;
  notes: string[];
}

export async function launchPlan(agent: string, userArgs: string[], ctx: LaunchContext): Promise<LaunchPlan> {
  if (!isAgentId(agent)) throw new NerdrError(`unknown agent "${agent}"`, `known agents: ${Object.keys(INTEGRATIONS).join(', ')}`);
  const spec = INTEGRATIONS[agent];
  const ac = agentConfig(ctx.config, agent);
  const command = ac.command ?? spec.command;
  const args = [...ac.args, ...userArgs];
  const notes: string[] = [];
  let mode: InstallMode = ac.install;
  if (!spec.wiring.modes.includes(mode)) mode = spec.wiring.default;
  if (!ctx.hooks) {
    if (mode !== 'off') notes.push('hooks not wired (--no-hooks): read from the screen only');
    mode = 'off';
  } else if (!ac.hooks) {
    if (mode !== 'off') notes.push(`hooks not wired (agents.${agent}.hooks = false): read from the screen only`);
    mode = 'off';
  }
  if (!spec.plan) return { argv: [...command, ...args], env: {}, notes, wiring: 'off', files: [] };
  return spec.plan({ agent, command, args, mode, ctx, env: ctx.env ?? process.env, notes });
}
