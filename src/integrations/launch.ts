// How nerdr starts an agent: the argv, extra environment and files that hand the agent nerdr's hooks
// for this launch only, or the home/worktree files the user opted into (docs/agents.md). Each
// agent's planner is its integration's `plan` (claude.ts, codex.ts, …); this one resolves config
// and dispatches.

import { NerdrError } from '../errors.js';
import { agentConfig, type NerdrConfig } from '../config.js';
import type { InstallMode } from './modes.js';
import type { LaunchPlan, PlanContext, PlanInput } from './types.js';
import { INTEGRATIONS, isAgentId } from './index.js';

/** Where a launch happens, with the whole config (launchPlan hands each planner its agent's part). */
export interface LaunchContext extends PlanContext {
  config: NerdrConfig;
}

export type { LaunchPlan, PlanInput };

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
  return spec.plan({ agent, command, args, mode, config: ac, ctx, env: ctx.env ?? process.env, notes });
}
