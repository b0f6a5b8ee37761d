// Gemini CLI (docs/agents.md). Gemini offers no way to hand hooks to one launch that works for an
// ordinary user, so nothing is wired unless the user opts in (`install = "home"`, or
// `nerdr integrations install gemini`):
// - its system settings files (GEMINI_CLI_SYSTEM_DEFAULTS_PATH, GEMINI_CLI_SYSTEM_SETTINGS_PATH) are
//   read only when root owns the file and no parent folder is writable by others; any other file is
//   skipped with a "Security Warning" on screen (Gemini CLI 0.61.0, tested offline);
// - settings hooks (user or project settings.json) run only in folders the user trusts.
// An extension is loaded without either condition: nerdr's is ~/.gemini/extensions/nerdr/, the
// manifest gemini-extension.json plus the hooks in hooks/hooks.json. Every gemini the user starts
// loads it, so each hook command first checks, in the shell, that nerdr started this gemini
// (NERDR_GEMINI_HOOKS=1, set by the launch): a gemini outside nerdr pays a `[`, not a shell start.
// The nerdr skill rides in the same extension (skills/nerdr/SKILL.md: Gemini 0.61 loads an
// extension's skills/ folder); its description says it applies inside nerdr (NERDR_TAB set).
// Always `--session-id <uuid>` (unless the user resumes or names one), so the conversation resumes.

import path from 'node:path';
import type { LaunchPlan, PlanInput } from './types.js';
import { flagValue, hasFlag, homeOf, hookCommand, isObj, mentionsOurHook, newUuid, parseJson, readText, UUID_RE } from './common.js';
import { installFile, usesHomeFile, type FileIntegration, type InstallCtx } from './install.js';
import { mapGemini, refineGemini } from './events/gemini.js';
import { DEFAULT_ENTER_DELAY_MS, flagThenId, type AgentIntegration } from './types.js';
import { isNerdrSkill, skillFileIn, skillText } from './skill.js';

export const GEMINI_EVENTS: { event: string; matcher?: string }[] = [
  { event: 'SessionStart' },
  { event: 'BeforeAgent' },
  { event: 'BeforeTool', matcher: '.*' },
  { event: 'AfterTool', matcher: '.*' },
  { event: 'Notification' },
  { event: 'AfterAgent' },
  { event: 'PreCompress' },
  { event: 'SessionEnd' },
];

/** Set in the environment of the gemini nerdr starts; the hook commands run only where it is 1. */
export const GEMINI_HOOK_ENV = 'NERDR_GEMINI_HOOKS';
export const GEMINI_MARK = 'Managed by nerdr: remove this sentence to keep your own edits.';

export function geminiHookCommand(nerdrBin: string, event: string): string {
  return `[ "$${GEMINI_HOOK_ENV}" != 1 ] || ${hookCommand(nerdrBin, 'gemini', event)}`;
}

/** hooks/hooks.json of nerdr's extension. */
export function geminiHooks(nerdrBin: string): { hooks: Record<string, unknown[]> } {
  const hooks: Record<string, unknown[]> = {};
  for (const { event, matcher } of GEMINI_EVENTS) {
    hooks[event] = [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: geminiHookCommand(nerdrBin, event), name: `nerdr-${event}`, timeout: 10_000 }] }];
  }
  return { hooks };
}

const render = (o: unknown): string => JSON.stringify(o, null, 2) + '\n';

export function geminiExtensionManifest(): string {
  return render({ name: 'nerdr', version: '1.0.0', description: `Reports Gemini CLI's prompts, tool calls, permission prompts and turn ends to nerdr. ${GEMINI_MARK}` });
}

function extensionDir(env: NodeJS.ProcessEnv): string {
  return path.join(homeOf(env), '.gemini', 'extensions', 'nerdr');
}

const marked = (text: string | undefined): boolean => {
  const m = text === undefined ? undefined : parseJson(text);
  return isObj(m) && typeof m['description'] === 'string' && m['description'].includes(GEMINI_MARK);
};

/** The extension's hooks file; its manifest is written beside it (`companions`). */
export const geminiFiles: FileIntegration = {
  agent: 'gemini',
  file: (_mode, c) => path.join(extensionDir(c.env), 'hooks', 'hooks.json'),
  folder: (_mode, c) => extensionDir(c.env),
  loadedWhenPresent: true,
  companions: (_mode, c) => [
    { file: path.join(extensionDir(c.env), 'gemini-extension.json'), text: geminiExtensionManifest(), ours: marked },
    { file: skillFileIn(path.join(extensionDir(c.env), 'skills')), text: skillText(c.packageRoot), ours: isNerdrSkill },
  ],
  apply(existing, c) {
    if (existing !== undefined && !mentionsOurHook(existing, 'gemini')) return { leave: 'an extension named nerdr that is not nerdr\'s is in ~/.gemini/extensions: left as it is' };
    return { text: render(geminiHooks(c.nerdrBin)) };
  },
  remove: (existing) => (mentionsOurHook(existing, 'gemini') ? null : undefined),
  current: (existing, c) => existing === render(geminiHooks(c.nerdrBin)),
  ours: (existing) => mentionsOurHook(existing, 'gemini'),
};

const SUBCOMMANDS = new Set(['mcp', 'extensions', 'extension', 'skills', 'skill', 'hooks', 'hook']);

export function planGemini(p: PlanInput): LaunchPlan {
  const { ctx, notes } = p;
  const args = p.args;
  const files: string[] = [];
  const env: Record<string, string> = {};
  if (args[0] !== undefined && SUBCOMMANDS.has(args[0])) return { argv: [...p.command, ...args], env, notes, wiring: 'off', files };
  if (hasFlag(args, ['--list-sessions', '--delete-session', '-l', '--list-extensions', '-v', '--version', '-h', '--help'])) {
    return { argv: [...p.command, ...args], env, notes, wiring: 'off', files };
  }
  const flags: string[] = [];
  let conversationId: string | undefined;
  const given = flagValue(args, ['--session-id']);
  const resume = flagValue(args, ['-r', '--resume']);
  if (given) conversationId = given;
  else if (resume !== undefined) {
    if (UUID_RE.test(resume)) conversationId = resume;
  } else {
    conversationId = newUuid();
    flags.push('--session-id', conversationId);
  }
  // `install = "home"`, or the extension is there already (`nerdr integrations install gemini`):
  // it is kept current and this gemini reports. --no-hooks and `hooks = false` turn it off.
  let wiring: LaunchPlan['wiring'] = 'off';
  const c: InstallCtx = { env: p.env, cwd: ctx.cwd, nerdrBin: ctx.nerdrBin, packageRoot: ctx.packageRoot, stateDir: ctx.stateDir };
  const refused = !ctx.hooks || !p.config.hooks;
  if (usesHomeFile(geminiFiles, p.mode, !refused, c)) {
    const r = installFile(geminiFiles, 'home', c);
    notes.push(...r.notes);
    files.push(...r.files);
    const now = readText(r.files[0]!);
    if (now !== undefined && geminiFiles.current(now, c)) {
      env[GEMINI_HOOK_ENV] = '1';
      wiring = 'home';
    }
  } else if (!refused) {
    notes.push('gemini: hooks are opt-in (Gemini has no per-launch hooks): `nerdr integrations install gemini` adds nerdr\'s extension to ~/.gemini; until then the screen is read');
  }
  return { argv: [...p.command, ...flags, ...args], env, ...(conversationId ? { conversationId } : {}), notes, wiring, files };
}

/** Gemini CLI, as nerdr starts, wires, reads and resumes it. */
export const gemini: AgentIntegration = {
  id: 'gemini',
  description: 'Gemini CLI',
  command: ['gemini'],
  aliases: ['gemini'],
  npm: '@google/gemini-cli',
  otherPackages: [],
  herdr: null,
  statusFile: null,
  proven: ['0.61.0'],
  // no per-launch route for a non-root user (its system settings files must be root-owned);
  // "home" = nerdr's extension in ~/.gemini/extensions/nerdr, also used whenever it is installed
  wiring: { modes: ['home', 'off'], default: 'off' },
  plan: planGemini,
  hooks: { map: mapGemini, refine: refineGemini },
  files: geminiFiles,
  launchWiring: null,
  resume: {
    args: flagThenId('--resume'),
    continue: ['--resume', 'latest'],
    guessNewest: false,
    strip: { value: ['--session-id', '-r', '--resume'], optional: [], bare: [] },
    idFlags: [['--session-id'], ['-r', '--resume']],
    idSubcommand: null,
    notFound: /no (previous )?sessions? found|session[^\n]{0,60}not found|invalid session/i,
  },
  // test/agents/screens/gemini/permission.txt, question.txt: numbered in a box, ● marks the
  // selection; Esc refuses
  dialogs: { top: null, row: null, denyKeys: ['Escape'] },
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
