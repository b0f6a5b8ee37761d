// GitHub Copilot CLI: nerdr's plugin handed to the copilot nerdr starts with `--plugin-dir`,
// so a copilot the agent runs itself has none and ~/.copilot/hooks is never
// touched. The manifest (`.plugin/plugin.json`, base in hooks/copilot/plugin.json) carries the hooks
// inline as the bare event map: Copilot 1.0.102 silently ignores an inline hooks-file shape
// (`{"version":1,"hooks":{…}}`) there (tested offline, docs/agents.md). camelCase events, each
// running nerdr's shell hook `… copilot <event>` (camelCase payloads carry no event name). preToolUse is not
// registered: it is fail-closed (a crash would deny the tool), and permissionRequest fires for
// auto-approved calls too; notification/permission_prompt is the signal.
//   launch    <state>/launch/copilot/plugin-<hash>/
//   home      ~/.copilot/nerdr-plugin/ ($COPILOT_HOME)
//   worktree  <cwd>/.copilot/nerdr-plugin/, kept out of git
// Also `--session-id <uuid>` unless the user resumes/continues/names one.

import path from 'node:path';
import type { LaunchPlan, PlanInput } from './types.js';
import { flagValue, hasFlag, homeOf, hookCommand, isObj, mentionsOurHook, newUuid, parseJson, readText, sha, UUID_RE, writeIfChanged } from './common.js';
import { installFile, type FileIntegration, type InstallCtx } from './install.js';
import { mapCopilot } from './events/copilot.js';
import { skillText } from './skill.js';
import { DEFAULT_ENTER_DELAY_MS, type AgentIntegration } from './types.js';

export const COPILOT_EVENTS: { event: string; matcher?: string }[] = [
  { event: 'sessionStart' },
  { event: 'sessionEnd' },
  { event: 'userPromptSubmitted' },
  { event: 'postToolUse' },
  { event: 'postToolUseFailure' },
  { event: 'notification', matcher: 'permission_prompt|elicitation_dialog' },
  { event: 'agentStop' },
  { event: 'subagentStart' },
  { event: 'subagentStop' },
  { event: 'preCompact' },
  { event: 'errorOccurred' },
];

export const COPILOT_MARK = 'Managed by nerdr: remove this sentence to keep your own edits.';

const SUBCOMMANDS = new Set(['help', 'login', 'logout', 'plugin', 'mcp', 'update', 'version', 'init']);

export function copilotManifest(packageRoot: string, nerdrBin: string): string {
  const base = parseJson(readText(path.join(packageRoot, 'hooks', 'copilot', 'plugin.json')));
  const manifest: Record<string, unknown> = isObj(base) ? { ...base } : { name: 'nerdr', description: COPILOT_MARK };
  const hooks: Record<string, unknown[]> = {};
  for (const { event, matcher } of COPILOT_EVENTS) {
    hooks[event] = [{ type: 'command', bash: hookCommand(nerdrBin, 'copilot', event), timeoutSec: 10, ...(matcher ? { matcher } : {}) }];
  }
  manifest['hooks'] = hooks;
  return JSON.stringify(manifest, null, 2) + '\n';
}

function pluginDir(mode: 'home' | 'worktree', c: { env: NodeJS.ProcessEnv; cwd: string }): string {
  return mode === 'home'
    ? path.join(c.env.COPILOT_HOME ? path.resolve(c.env.COPILOT_HOME) : path.join(homeOf(c.env), '.copilot'), 'nerdr-plugin')
    : path.join(c.cwd, '.copilot', 'nerdr-plugin');
}

const marked = (text: string) => {
  const m = parseJson(text);
  return isObj(m) && typeof m['description'] === 'string' && m['description'].includes(COPILOT_MARK);
};

export const copilotFiles: FileIntegration = {
  agent: 'copilot',
  file: (mode, c) => path.join(pluginDir(mode, c), '.plugin', 'plugin.json'),
  folder: (mode, c) => pluginDir(mode, c),
  apply(existing, c) {
    if (existing !== undefined && !marked(existing)) return { leave: 'nerdr\'s copilot plugin was edited (its "Managed by nerdr" sentence is gone): left as it is' };
    return { text: copilotManifest(c.packageRoot, c.nerdrBin) };
  },
  remove: (existing) => (marked(existing) ? null : undefined),
  current: (existing, c) => existing === copilotManifest(c.packageRoot, c.nerdrBin),
  ours: (existing) => marked(existing) || mentionsOurHook(existing, 'copilot'),
};

export function planCopilot(p: PlanInput): LaunchPlan {
  const { ctx, notes } = p;
  const args = p.args;
  const files: string[] = [];
  if (args[0] !== undefined && SUBCOMMANDS.has(args[0])) return { argv: [...p.command, ...args], env: {}, notes, wiring: 'off', files };
  const flags: string[] = [];
  let conversationId: string | undefined;
  const given = flagValue(args, ['--session-id']);
  const resume = flagValue(args, ['-r', '--resume'], 'optional');
  if (given) conversationId = given;
  else if (resume !== undefined || hasFlag(args, ['--continue'])) {
    if (resume && UUID_RE.test(resume)) conversationId = resume;
  } else if (!hasFlag(args, ['-p', '--prompt'])) {
    conversationId = newUuid();
    flags.push('--session-id', conversationId);
  }
  if (p.mode !== 'off') {
    let dir: string;
    if (p.mode === 'home' || p.mode === 'worktree') {
      const c: InstallCtx = { env: p.env, cwd: ctx.cwd, nerdrBin: ctx.nerdrBin, packageRoot: ctx.packageRoot, stateDir: ctx.stateDir };
      const r = installFile(copilotFiles, p.mode, c);
      notes.push(...r.notes);
      files.push(...r.files);
      dir = pluginDir(p.mode, c);
    } else {
      const manifest = copilotManifest(ctx.packageRoot, ctx.nerdrBin);
      // the nerdr skill rides in the same plugin: Copilot loads a plugin's skills/ with it
      const skill = skillText(ctx.packageRoot);
      dir = path.join(ctx.stateDir, 'launch', 'copilot', `plugin-${sha(manifest + skill)}`);
      const file = path.join(dir, '.plugin', 'plugin.json');
      writeIfChanged(file, manifest);
      const skillFile = path.join(dir, 'skills', 'nerdr', 'SKILL.md');
      writeIfChanged(skillFile, skill);
      files.push(file, skillFile);
    }
    flags.unshift('--plugin-dir', dir);
  }
  return { argv: [...p.command, ...flags, ...args], env: {}, ...(conversationId ? { conversationId } : {}), notes, wiring: p.mode, files };
}

/** GitHub Copilot CLI, as nerdr starts, wires, reads and resumes it. */
export const copilot: AgentIntegration = {
  id: 'copilot',
  description: 'GitHub Copilot CLI',
  command: ['copilot'],
  aliases: ['copilot', 'github-copilot', 'ghcs'],
  npm: '@github/copilot',
  otherPackages: [],
  herdr: { source: 'herdr:copilot', reports: 'reserved', newSessionOn: null, conversation: 'id', unsequencedSelect: false },
  statusFile: null,
  proven: ['1.0.102'],
  wiring: { modes: ['launch', 'home', 'worktree', 'off'], default: 'launch' },
  plan: planCopilot,
  hooks: { map: mapCopilot, refine: null },
  files: copilotFiles,
  launchWiring: '--plugin-dir <state>/launch/copilot/plugin-* (hooks and the nerdr skill) + --session-id',
  resume: {
    args: (id) => [`--resume=${id}`],
    continue: ['--continue'],
    guessNewest: true,
    strip: { value: ['--session-id'], optional: ['-r', '--resume'], bare: ['--continue'] },
    idFlags: [['--session-id'], ['-r', '--resume']],
    idSubcommand: null,
    notFound: /session[^\n]{0,60}not found|no session (found|with)/i,
  },
  // test/agents/screens/copilot/permission.txt: numbered in a box, ❯ marks the selection; Esc
  // refuses. Its questions list their choices unnumbered: shown, not answered (docs/inbox.md)
  dialogs: { top: null, row: null, denyKeys: ['Escape'] },
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
