// Gemini CLI: no --settings flag, so nerdr's hooks go in a "system defaults" settings file named by
// GEMINI_CLI_SYSTEM_DEFAULTS_PATH — the lowest-precedence scope, whose hook arrays are concatenated
// with the user's own (agent-hooks.md §5). If the user already points that variable at a file of
// theirs, nerdr's file is their content plus its hooks. Plus `--session-id <uuid>`.
// Trust: Gemini skips these hooks in a folder it does not trust. nerdr does not pass --skip-trust
// (that would also load the project's own settings and hooks): until the user trusts the folder in
// Gemini's own dialog, the screen is read.

import path from 'node:path';
import type { LaunchPlan, PlanInput } from './launch.js';
import { flagValue, hasFlag, hookCommand, isObj, launchFile, newUuid, parseJson, readText, UUID_RE } from './common.js';

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

export function geminiSettings(nerdrBin: string): { hooks: Record<string, unknown[]> } {
  const hooks: Record<string, unknown[]> = {};
  for (const { event, matcher } of GEMINI_EVENTS) {
    hooks[event] = [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: hookCommand(nerdrBin, 'gemini', event), name: `nerdr-${event}`, timeout: 10_000 }] }];
  }
  return { hooks };
}

const SUBCOMMANDS = new Set(['mcp', 'extensions', 'extension', 'skills', 'hooks']);

export function planGemini(p: PlanInput): LaunchPlan {
  const { ctx, notes, env: userEnv } = p;
  const args = p.args;
  const files: string[] = [];
  const env: Record<string, string> = {};
  if (args[0] !== undefined && SUBCOMMANDS.has(args[0])) return { argv: [...p.command, ...args], env, notes, wiring: 'off', files };
  if (hasFlag(args, ['--list-sessions', '--delete-session', '-v', '--version', '-h', '--help'])) return { argv: [...p.command, ...args], env, notes, wiring: 'off', files };
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
  let mode = p.mode;
  if (mode !== 'off') {
    const ours = geminiSettings(ctx.nerdrBin);
    let settings: Record<string, unknown> = ours;
    const theirs = userEnv.GEMINI_CLI_SYSTEM_DEFAULTS_PATH;
    if (theirs) {
      const parsed = parseJson(readText(path.resolve(ctx.cwd, theirs)));
      if (isObj(parsed)) {
        const hooks: Record<string, unknown> = isObj(parsed['hooks']) ? { ...(parsed['hooks'] as Record<string, unknown>) } : {};
        for (const [ev, groups] of Object.entries(ours.hooks)) hooks[ev] = [...(Array.isArray(hooks[ev]) ? (hooks[ev] as unknown[]) : []), ...groups];
        settings = { ...parsed, hooks };
      } else {
        notes.push(`could not read your GEMINI_CLI_SYSTEM_DEFAULTS_PATH file ${theirs}: nerdr's hooks not added`);
        mode = 'off';
      }
    }
    if (mode !== 'off') {
      const file = launchFile(ctx.stateDir, 'gemini', 'system-defaults', 'json', JSON.stringify(settings, null, 2) + '\n');
      files.push(file);
      env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH = file;
      if (!hasFlag(args, ['--skip-trust']) && userEnv.GEMINI_CLI_TRUST_WORKSPACE !== 'true') {
        notes.push('gemini runs these hooks only in a folder you trust (its own trust dialog); until then the screen is read');
      }
    }
  }
  return { argv: [...p.command, ...flags, ...args], env, ...(conversationId ? { conversationId } : {}), notes, wiring: mode, files };
}
