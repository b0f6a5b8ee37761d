// Claude Code: hooks handed per launch with `--settings <file>`, plus
// `--session-id <uuid>` so nerdr knows the conversation before the first hook and can resume it.
// Nothing is written into ~/.claude.

import type { LimitWording } from '../detect/limits.js';
import path from 'node:path';
import type { LaunchPlan, PlanInput } from './types.js';
import { flagValue, hasFlag, homeOf, hookCommand, hookGroups, isObj, launchFile, newUuid, parseJson, readText, UUID_RE, withoutFlag, type HookGroup } from './common.js';
import { mapClaude } from './events/claude.js';
import { claudeSkillPlugin } from './skill.js';
import { DEFAULT_ENTER_DELAY_MS, flagThenId, type AgentIntegration } from './types.js';

/** Events nerdr listens to, and the matcher group used for each. */
export const CLAUDE_EVENTS: { event: string; matcher?: string }[] = [
  { event: 'SessionStart' },
  { event: 'UserPromptSubmit' },
  { event: 'PreToolUse', matcher: '*' },
  { event: 'PermissionRequest', matcher: '*' },
  { event: 'PostToolUse', matcher: '*' },
  { event: 'PostToolUseFailure', matcher: '*' },
  { event: 'PermissionDenied', matcher: '*' },
  // permission_prompt arrives ~6 s after PermissionRequest (a confirmation); idle_prompt after 60 s idle.
  { event: 'Notification', matcher: 'permission_prompt|idle_prompt|elicitation_dialog|agent_needs_input|worker_permission_prompt' },
  { event: 'Stop' },
  { event: 'StopFailure' },
  { event: 'SubagentStart' },
  { event: 'SubagentStop' },
  { event: 'PreCompact' },
  { event: 'SessionEnd' },
];

/**
 * How Claude Code says its plan's limit is reached (2.1.197's bundle: the 429 of a claude.ai
 * login with `anthropic-ratelimit-unified-status: rejected` becomes "You've hit your session
 * limit · resets 3pm (Europe/Berlin)"; a reset more than a day away reads "Dec 5, 3pm (UTC)").
 * Older releases wrote "5-hour limit reached ∙ resets 3pm" and "Claude usage limit reached. Your
 * limit will reset at 3pm (America/New_York)". The error line is the newest output, under the
 * prompt it answered (test/fixtures/screens/claude/limited-*.txt).
 */
const CLAUDE_RESET = String.raw`(?<reset>[^()·∙]*?\d[^()·∙]*?(?:\s*\([^()]{1,64}\))?)(?=\s*$|\s*[·∙]|\.(?:\s|$)|\s+\/|(?<=\))\s)`;
export const CLAUDE_USAGE_LIMIT: LimitWording = {
  patterns: [
    new RegExp(String.raw`You['’]ve hit your [^·∙]{0,60}?limit(?:\s*[·∙]\s*resets ${CLAUDE_RESET})?`),
    new RegExp(String.raw`You['’]re out of usage credits(?:\s*[·∙]\s*resets ${CLAUDE_RESET})?`),
    new RegExp(String.raw`(?:Claude )?[\w-]*\s*(?:usage )?limit reached(?:\s*[·∙]\s*resets |\.? Your limit will reset at )${CLAUDE_RESET}`),
  ],
  bottomRows: 12,
  cue: /limit|credits/,
  // 2.1.197 opens it by itself right after the limit (/rate-limit-options): "Stop and wait for
  // limit to reset", "Upgrade your plan"; Esc cancels it (test/fixtures/screens/claude/captured-limited-options.txt)
  dialog: { text: /What do you want to do\?[\s\S]{0,400}Stop and wait for limit to reset/, dismissKeys: ['Escape'] },
};

/** Subcommands that are not an interactive session: started as given, no wiring. */
const SUBCOMMANDS = new Set(['mcp', 'config', 'doctor', 'update', 'upgrade', 'install', 'migrate-installer', 'setup-token', 'plugin', 'plugins', 'auth', 'agents']);

/** The settings object passed with --settings. Claude's payloads name their event, so no hint is passed. */
export function claudeSettings(nerdrBin: string): { hooks: Record<string, HookGroup[]> } {
  return { hooks: hookGroups(CLAUDE_EVENTS, () => ({ type: 'command', command: hookCommand(nerdrBin, 'claude'), timeout: 10 })) };
}

/** Claude's global config (~/.claude.json, or $CLAUDE_CONFIG_DIR/.claude.json). */
export function claudeGlobalConfigFile(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR ? path.join(env.CLAUDE_CONFIG_DIR, '.claude.json') : path.join(homeOf(env), '.claude.json');
}

/**
 * Has the user accepted Claude's "Do you trust this folder?" dialog for cwd (or a parent)?
 * Until then Claude runs no hook at all (tested). nerdr only reads this.
 */
export function claudeTrusts(env: NodeJS.ProcessEnv, cwd: string): boolean | undefined {
  const text = readText(claudeGlobalConfigFile(env));
  if (text === undefined) return false; // never run here: it will ask
  const cfg = parseJson(text);
  if (!isObj(cfg)) return undefined;
  const projects = cfg['projects'];
  if (!isObj(projects)) return false;
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const p = projects[dir];
    if (isObj(p) && p['hasTrustDialogAccepted'] === true) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/** Where a Claude process keeps its status files (`<pid>.json`), from its environment. Pure. */
export function claudeSessionsDir(env: Readonly<Record<string, string | undefined>>): string | null {
  const configDir = env['CLAUDE_CONFIG_DIR'];
  const home = env['HOME'];
  if (configDir && path.isAbsolute(configDir)) return path.join(configDir, 'sessions');
  if (home && path.isAbsolute(home)) return path.join(home, '.claude', 'sessions');
  return null;
}

/** Merge nerdr's hooks into a user's own settings object (their hooks first, ours appended). */
export function mergeClaudeSettings(user: Record<string, unknown>, ours: { hooks: Record<string, HookGroup[]> }): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...user };
  const hooks: Record<string, unknown> = isObj(user['hooks']) ? { ...(user['hooks'] as Record<string, unknown>) } : {};
  for (const [event, groups] of Object.entries(ours.hooks)) {
    const existing = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    hooks[event] = [...existing, ...groups];
  }
  merged['hooks'] = hooks;
  return merged;
}

export function planClaude(p: PlanInput): LaunchPlan {
  const { ctx, notes } = p;
  let args = p.args;
  const files: string[] = [];
  const env: Record<string, string> = {};
  const interactive = !(args[0] !== undefined && SUBCOMMANDS.has(args[0]));
  if (!interactive) return { argv: [...p.command, ...args], env, notes, wiring: 'off', files };

  // The conversation id: chosen here unless the user resumes or picks one.
  const flags: string[] = [];
  let conversationId: string | undefined;
  const given = flagValue(args, ['--session-id']);
  const resume = flagValue(args, ['-r', '--resume'], 'optional');
  const fork = hasFlag(args, ['--fork-session']);
  if (given) conversationId = given;
  else if (resume !== undefined || hasFlag(args, ['-c', '--continue', '--from-pr'])) {
    if (resume && UUID_RE.test(resume) && !fork) conversationId = resume;
  } else {
    conversationId = newUuid();
    flags.push('--session-id', conversationId);
  }

  let mode = p.mode;
  if (mode !== 'off' && hasFlag(args, ['--bare', '--safe-mode'])) {
    notes.push('claude skips settings hooks with --bare/--safe-mode: read from the screen only');
    mode = 'off';
  }
  if (mode !== 'off') {
    const ours = claudeSettings(ctx.nerdrBin);
    let settings: Record<string, unknown> = ours;
    const userSettings = flagValue(args, ['--settings']);
    let merged = true;
    if (userSettings !== undefined) {
      // The user's own --settings: one file with theirs and ours, in place of theirs.
      const text = userSettings.trimStart().startsWith('{') ? userSettings : readText(path.resolve(ctx.cwd, userSettings));
      const parsed = parseJson(text);
      if (isObj(parsed)) {
        settings = mergeClaudeSettings(parsed, ours);
        args = withoutFlag(args, ['--settings']);
      } else {
        merged = false;
        notes.push(`could not read your --settings ${userSettings}: nerdr's hooks not added; read from the screen only`);
        mode = 'off';
      }
    }
    if (merged) {
      const file = launchFile(ctx.stateDir, 'claude', 'settings', 'json', JSON.stringify(settings, null, 2) + '\n');
      files.push(file);
      flags.unshift('--settings', file);
      // the nerdr skill, as a plugin for this launch only (nothing installed in ~/.claude)
      const plugin = claudeSkillPlugin(ctx.stateDir, ctx.packageRoot);
      files.push(plugin);
      flags.push('--plugin-dir', plugin);
      const trusted = hasFlag(args, ['-p', '--print']) ? true : claudeTrusts(p.env, ctx.cwd);
      if (trusted === false) {
        notes.push(`Claude will ask whether you trust ${ctx.cwd}; its hooks run only once you accept (until then the screen is read)`);
      }
    }
  }
  return { argv: [...p.command, ...flags, ...args], env, ...(conversationId ? { conversationId } : {}), notes, wiring: mode, files };
}

/** Claude Code, as nerdr starts, wires, reads and resumes it. */
export const claude: AgentIntegration = {
  id: 'claude',
  description: 'Claude Code',
  command: ['claude'],
  aliases: ['claude', 'claude-code'],
  npm: '@anthropic-ai/claude-code',
  otherPackages: [],
  herdr: { source: 'herdr:claude', reports: 'reserved', newSessionOn: ['clear', 'resume', 'compact'], conversation: 'id', unsequencedSelect: false },
  statusFile: { vars: ['CLAUDE_CONFIG_DIR', 'HOME'], folder: claudeSessionsDir },
  proven: ['2.1.197', '2.1.332'],
  wiring: { modes: ['launch', 'off'], default: 'launch' },
  plan: planClaude,
  hooks: { map: mapClaude, refine: null },
  files: null,
  launchWiring: '--settings <state>/launch/claude/settings-*.json + --session-id + --plugin-dir <state>/launch/claude/plugin-* (the nerdr skill)',
  resume: {
    args: flagThenId('--resume'),
    continue: ['--continue'],
    // Claude's newest conversation of a folder may be another window's: never guessed
    guessNewest: false,
    strip: { value: ['--session-id'], optional: ['-r', '--resume', '--from-pr'], bare: ['-c', '--continue', '--fork-session'] },
    idFlags: [['--session-id'], ['-r', '--resume']],
    idSubcommand: null,
    notFound: /No conversation found/i,
  },
  // its dialogs (test/agents/screens/claude/permission.txt, question.txt): numbered, ❯ marks the
  // selection, Enter chooses; Esc refuses (the real-agent suite)
  dialogs: { top: null, row: null, denyKeys: ['Escape'] },
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
  usageLimit: CLAUDE_USAGE_LIMIT,
};
