// Qwen Code (`qwen`, a Gemini CLI fork with Claude-style hooks). Hooks are handed per launch in a
// system settings file named by QWEN_CODE_SYSTEM_SETTINGS_PATH: nerdr writes one under
// <state>/launch/qwen/ holding the machine's own system settings (/etc/qwen-code/settings.json, or
// the file that variable already named) with nerdr's hooks added, so nothing of the user's is
// replaced and nothing goes into ~/.qwen. Qwen 0.24 reads that file whoever owns it and runs its
// hooks in any folder (tested offline: docs/agents.md). `--session-id <uuid>` unless the user
// resumes or names one, so the conversation is known before the first hook and can be resumed.

import type { LaunchPlan, PlanInput } from './types.js';
import { flagValue, hasFlag, hookCommand, hookGroups, isObj, launchFile, newUuid, parseJson, readText, UUID_RE, type HookGroup } from './common.js';
import { mapQwen } from './events/qwen.js';
import { mergeClaudeSettings } from './claude.js';
import { DEFAULT_ENTER_DELAY_MS, flagThenId, type AgentIntegration } from './types.js';

/** The events nerdr listens to (Qwen Code 0.24's names; matchers as Claude's). */
export const QWEN_EVENTS: { event: string; matcher?: string }[] = [
  { event: 'SessionStart' },
  { event: 'UserPromptSubmit' },
  { event: 'PreToolUse', matcher: '*' },
  { event: 'PermissionRequest', matcher: '*' },
  { event: 'PostToolUse', matcher: '*' },
  { event: 'PostToolUseFailure', matcher: '*' },
  { event: 'PostToolBatch' },
  { event: 'Notification' },
  { event: 'Stop' },
  { event: 'StopFailure' },
  { event: 'SubagentStart' },
  { event: 'SubagentStop' },
  { event: 'PreCompact' },
  { event: 'SessionEnd' },
];

/** Where Qwen reads system settings when the variable is not set (Linux). */
export const QWEN_SYSTEM_SETTINGS = '/etc/qwen-code/settings.json';
export const QWEN_SETTINGS_ENV = 'QWEN_CODE_SYSTEM_SETTINGS_PATH';

const SUBCOMMANDS = new Set(['mcp', 'extensions', 'extension', 'sessions', 'auth', 'hooks', 'channel', 'review']);

export function qwenHooks(nerdrBin: string): Record<string, HookGroup[]> {
  return hookGroups(QWEN_EVENTS, (event) => ({ type: 'command', command: hookCommand(nerdrBin, 'qwen'), name: `nerdr-${event}`, timeout: 10 }));
}

/** The system settings with nerdr's hooks after any there are (the same merge as Claude's). Pure. */
export function qwenSystemSettings(system: Record<string, unknown>, nerdrBin: string): Record<string, unknown> {
  return mergeClaudeSettings(system, { hooks: qwenHooks(nerdrBin) });
}

export function planQwen(p: PlanInput): LaunchPlan {
  const { ctx, notes } = p;
  const args = p.args;
  const files: string[] = [];
  const env: Record<string, string> = {};
  if (args[0] !== undefined && SUBCOMMANDS.has(args[0])) return { argv: [...p.command, ...args], env, notes, wiring: 'off', files };
  if (hasFlag(args, ['-v', '--version', '-h', '--help', '-p', '--prompt'])) return { argv: [...p.command, ...args], env, notes, wiring: 'off', files };

  const flags: string[] = [];
  let conversationId: string | undefined;
  const given = flagValue(args, ['--session-id']);
  const resume = flagValue(args, ['-r', '--resume'], 'optional');
  if (given) conversationId = given;
  else if (resume !== undefined || hasFlag(args, ['-c', '--continue'])) {
    if (resume && UUID_RE.test(resume)) conversationId = resume;
  } else {
    conversationId = newUuid();
    flags.push('--session-id', conversationId);
  }

  let mode = p.mode;
  if (mode !== 'off') {
    const systemFile = p.env[QWEN_SETTINGS_ENV] || QWEN_SYSTEM_SETTINGS;
    const text = readText(systemFile);
    const parsed = text === undefined ? {} : parseJson(text);
    if (!isObj(parsed)) {
      notes.push(`could not read Qwen's system settings ${systemFile}: nerdr's hooks not added (they would hide it); read from the screen only`);
      mode = 'off';
    } else {
      const file = launchFile(ctx.stateDir, 'qwen', 'settings', 'json', JSON.stringify(qwenSystemSettings(parsed, ctx.nerdrBin), null, 2) + '\n');
      files.push(file);
      env[QWEN_SETTINGS_ENV] = file;
    }
  }
  return { argv: [...p.command, ...flags, ...args], env, ...(conversationId ? { conversationId } : {}), notes, wiring: mode, files };
}

export const qwen: AgentIntegration = {
  id: 'qwen',
  description: 'Qwen Code',
  command: ['qwen'],
  aliases: ['qwen', 'qwen-code', 'qwen code'],
  npm: '@qwen-code/qwen-code',
  otherPackages: [],
  herdr: { source: 'herdr:qwen', reports: 'reserved', newSessionOn: ['startup', 'clear', 'resume', 'compact', 'branch'], conversation: 'id', unsequencedSelect: false },
  statusFile: null,
  proven: ['0.24.4'],
  wiring: { modes: ['launch', 'off'], default: 'launch' },
  plan: planQwen,
  hooks: { map: mapQwen, refine: null },
  files: null,
  launchWiring: `${QWEN_SETTINGS_ENV}=<state>/launch/qwen/settings-*.json (the system settings plus nerdr's hooks) + --session-id`,
  resume: {
    args: flagThenId('--resume'),
    continue: ['--continue'],
    guessNewest: false,
    strip: { value: ['--session-id'], optional: ['-r', '--resume'], bare: ['-c', '--continue'] },
    idFlags: [['--session-id'], ['-r', '--resume']],
    idSubcommand: null,
    notFound: null,
  },
  // test/agents/screens/qwen/permission.txt: the dialog begins at its `? Tool …` line, numbered,
  // › marks the selection; Esc refuses
  dialogs: { top: /^\? /, row: null, denyKeys: ['Escape'] },
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
