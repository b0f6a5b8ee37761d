// Grok Build: hooks come only from files, so nothing is wired unless asked:
//   home      ~/.grok/hooks/nerdr.json ($GROK_HOME)
//   worktree  <cwd>/.grok/hooks/nerdr.json, kept out of git when nerdr made it
// The file is wholly nerdr's (grok merges every hooks/*.json). A nerdr.json without nerdr's hook
// commands in it is left alone — replacing it with {} is how the user turns them off.
// PreToolUse (grok's only blocking event) is not registered. Grok asks to trust a folder before it
// runs any hook there; until then the screen is read. The launch sets NERDR_GROK_HOOK=1 to mark the
// grok nerdr started.

import path from 'node:path';
import type { LaunchPlan, PlanInput } from './types.js';
import { homeOf, hookCommand, hookGroups, isOurCommand, parseJson, isObj } from './common.js';
import { installFile, type FileIntegration, type InstallCtx } from './install.js';
import { mapGrok } from './events/grok.js';
import { DEFAULT_ENTER_DELAY_MS, flagThenId, type AgentIntegration } from './types.js';

export const GROK_EVENTS: { event: string; matcher?: string }[] = [
  { event: 'SessionStart' },
  { event: 'UserPromptSubmit' },
  { event: 'PostToolUse', matcher: '*' },
  { event: 'PostToolUseFailure', matcher: '*' },
  { event: 'PermissionDenied', matcher: '*' },
  { event: 'Notification' },
  { event: 'Stop' },
  { event: 'StopFailure' },
  { event: 'SubagentStart' },
  { event: 'SubagentStop' },
  { event: 'PreCompact' },
  { event: 'SessionEnd' },
];

export function grokHooksFile(nerdrBin: string): string {
  const hooks = hookGroups(GROK_EVENTS, (event) => ({ type: 'command', command: hookCommand(nerdrBin, 'grok', event), timeout: 10 }));
  return JSON.stringify({ hooks }, null, 2) + '\n';
}

function grokHome(env: NodeJS.ProcessEnv): string {
  return env.GROK_HOME ? path.resolve(env.GROK_HOME) : path.join(homeOf(env), '.grok');
}

/** Any of nerdr's hook commands in the file? */
function hasOurs(text: string): boolean {
  const parsed = parseJson(text);
  if (!isObj(parsed) || !isObj(parsed['hooks'])) return false;
  for (const groups of Object.values(parsed['hooks'] as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups) {
      if (!isObj(g)) continue;
      if (isOurCommand(g['command'], 'grok')) return true;
      if (Array.isArray(g['hooks']) && g['hooks'].some((h) => isObj(h) && isOurCommand(h['command'], 'grok'))) return true;
    }
  }
  return false;
}

export const grokFiles: FileIntegration = {
  agent: 'grok',
  file: (mode, c) => path.join(mode === 'home' ? grokHome(c.env) : path.join(c.cwd, '.grok'), 'hooks', 'nerdr.json'),
  apply(existing, c) {
    if (existing !== undefined && !hasOurs(existing)) return { leave: 'nerdr.json holds no nerdr hooks (turned off by you): left as it is' };
    return { text: grokHooksFile(c.nerdrBin) };
  },
  remove: (existing) => (hasOurs(existing) ? null : undefined),
  current: (existing, c) => existing === grokHooksFile(c.nerdrBin),
  ours: hasOurs,
};

export function planGrok(p: PlanInput): LaunchPlan {
  const { ctx, notes } = p;
  const argv = [...p.command, ...p.args];
  if (p.mode !== 'home' && p.mode !== 'worktree') return { argv, env: {}, notes, wiring: 'off', files: [] };
  const c: InstallCtx = { env: p.env, cwd: ctx.cwd, nerdrBin: ctx.nerdrBin, packageRoot: ctx.packageRoot, stateDir: ctx.stateDir };
  const r = installFile(grokFiles, p.mode, c);
  notes.push(...r.notes);
  return { argv, env: { NERDR_GROK_HOOK: '1' }, notes, wiring: p.mode, files: r.files };
}

/** Grok CLI, as nerdr starts, wires, reads and resumes it. */
export const grok: AgentIntegration = {
  id: 'grok',
  description: 'Grok CLI',
  command: ['grok'],
  aliases: ['grok', 'grok-build'],
  npm: null,
  otherPackages: ['@vibe-kit/grok-cli'],
  herdr: { source: 'herdr:grok', reports: 'reserved', newSessionOn: null, conversation: 'id', unsequencedSelect: false },
  statusFile: null,
  proven: [],
  // no per-launch route: only files the agent reads itself, so nothing unless asked for
  wiring: { modes: ['home', 'worktree', 'off'], default: 'off' },
  plan: planGrok,
  hooks: { map: mapGrok, refine: null },
  files: grokFiles,
  launchWiring: null,
  resume: {
    args: flagThenId('--resume'),
    continue: null,
    guessNewest: false,
    strip: { value: ['--session-id'], optional: ['-r', '--resume'], bare: ['-c', '--continue'] },
    idFlags: [['--session-id'], ['-r', '--resume']],
    idSubcommand: null,
    notFound: null,
  },
  dialogs: null,
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
