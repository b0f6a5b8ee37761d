// Antigravity CLI (agy): no per-launch route, hooks come only from files, so nothing is wired unless
// the user opts in (docs/agents.md):
//   home      ~/.gemini/config/hooks.json ($ANTIGRAVITY_CLI_CONFIG_DIR)
//   worktree  <cwd>/.agents/hooks.json, kept out of git when nerdr made it
// agy's hooks.json is keyed by hook *name*; nerdr owns the key "nerdr" and nothing else. The user may
// set "enabled": false in it to turn nerdr's hooks off; that is kept on reinstall. PreInvocation,
// Stop and SessionStart take flat handler lists; PreToolUse/PostToolUse take {matcher, hooks} groups.
// The payloads carry no event name, so each command passes it. Every agy reads these files, so the
// launch sets NERDR_AGY_HOOK=1 to mark the agy nerdr started (the hook side checks it).

import path from 'node:path';
import type { LaunchPlan, PlanInput } from './types.js';
import { homeOf, hookCommand, isObj, parseJson } from './common.js';
import { installFile, type FileIntegration, type InstallCtx } from './install.js';
import { mapAgy } from './events/agy.js';
import { DEFAULT_ENTER_DELAY_MS, flagThenId, type AgentIntegration } from './types.js';

export const AGY_KEY = 'nerdr';

export function agyEntry(nerdrBin: string): Record<string, unknown> {
  const h = (event: string) => ({ type: 'command', command: hookCommand(nerdrBin, 'agy', event), timeout: 10 });
  return {
    SessionStart: [h('SessionStart')],
    PreInvocation: [h('PreInvocation')],
    // the one tool call hooked before it runs: conversations after it belong to subagents
    PreToolUse: [{ matcher: 'invoke_subagent', hooks: [h('PreToolUse')] }],
    PostToolUse: [{ matcher: '*', hooks: [h('PostToolUse')] }],
    Stop: [h('Stop')],
  };
}

function agyConfigDir(env: NodeJS.ProcessEnv): string {
  return env.ANTIGRAVITY_CLI_CONFIG_DIR ? path.resolve(env.ANTIGRAVITY_CLI_CONFIG_DIR) : path.join(homeOf(env), '.gemini', 'config');
}

function render(obj: Record<string, unknown>): string {
  return JSON.stringify(obj, null, 2) + '\n';
}

function withOurs(existing: Record<string, unknown>, nerdrBin: string): Record<string, unknown> {
  const prev = existing[AGY_KEY];
  const entry = agyEntry(nerdrBin);
  if (isObj(prev) && typeof prev['enabled'] === 'boolean') entry['enabled'] = prev['enabled'];
  return { ...existing, [AGY_KEY]: entry };
}

export const agyFiles: FileIntegration = {
  agent: 'agy',
  file: (mode, c) => (mode === 'home' ? path.join(agyConfigDir(c.env), 'hooks.json') : path.join(c.cwd, '.agents', 'hooks.json')),
  apply(existing, c) {
    if (existing === undefined || existing.trim() === '') return { text: render(withOurs({}, c.nerdrBin)) };
    const parsed = parseJson(existing);
    // agy drops a whole file on any error; never make it worse, never guess.
    if (!isObj(parsed)) return { leave: 'the hooks file is not a JSON object: left as it is' };
    return { text: render(withOurs(parsed, c.nerdrBin)) };
  },
  remove(existing) {
    const parsed = parseJson(existing);
    if (!isObj(parsed) || !(AGY_KEY in parsed)) return undefined;
    const { [AGY_KEY]: _ours, ...rest } = parsed;
    return Object.keys(rest).length === 0 ? null : render(rest);
  },
  current(existing, c) {
    const parsed = parseJson(existing);
    if (!isObj(parsed) || !isObj(parsed[AGY_KEY])) return false;
    return render(withOurs(parsed, c.nerdrBin)) === render(parsed);
  },
  ours: (existing) => {
    const parsed = parseJson(existing);
    return isObj(parsed) && AGY_KEY in parsed;
  },
};

export function planAgy(p: PlanInput): LaunchPlan {
  const { ctx, notes } = p;
  const argv = [...p.command, ...p.args];
  if (p.mode !== 'home' && p.mode !== 'worktree') return { argv, env: {}, notes, wiring: 'off', files: [] };
  const c: InstallCtx = { env: p.env, cwd: ctx.cwd, nerdrBin: ctx.nerdrBin, packageRoot: ctx.packageRoot, stateDir: ctx.stateDir };
  const r = installFile(agyFiles, p.mode, c);
  notes.push(...r.notes);
  return { argv, env: { NERDR_AGY_HOOK: '1' }, notes, wiring: p.mode, files: r.files };
}

/** Antigravity CLI, as nerdr starts, wires, reads and resumes it. */
export const agy: AgentIntegration = {
  id: 'agy',
  description: 'Antigravity CLI',
  command: ['agy'],
  aliases: ['agy', 'antigravity', 'antigravity-cli'],
  npm: null,
  otherPackages: [],
  herdr: { source: 'herdr:antigravity_cli', reports: 'session-only', newSessionOn: 'always', conversation: 'id', unsequencedSelect: false },
  statusFile: null,
  proven: [],
  // no per-launch route: only files the agent reads itself, so nothing unless asked for
  wiring: { modes: ['home', 'worktree', 'off'], default: 'off' },
  plan: planAgy,
  hooks: { map: mapAgy, refine: null },
  files: agyFiles,
  launchWiring: null,
  resume: {
    args: flagThenId('--conversation'),
    continue: ['--continue'],
    guessNewest: false,
    strip: { value: ['--conversation'], optional: [], bare: ['--continue'] },
    idFlags: [['--conversation']],
    idSubcommand: null,
    notFound: null,
  },
  dialogs: null,
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
