// pi (the pi coding agent, npm @earendil-works/pi-coding-agent): nerdr's extension
// (hooks/pi/nerdr.js) loaded for this launch only with `-e <file>`, the nerdr skill with
// `--skill <folder>`, and `--session-id <uuid>` so the conversation is known before the first
// event (pi makes the session with that id, docs/agents.md). `-e` paths load even with
// --no-extensions. pi keeps its sessions per folder (~/.pi/agent/sessions/--<cwd>--/), and
// `--session <id>` opens one again. Nothing is written outside nerdr's state folder.

import path from 'node:path';
import { NerdrError } from '../errors.js';
import type { LaunchPlan, PlanInput } from './types.js';
import { flagValue, hasFlag, newUuid, readText, UUID_RE, writeIfChanged } from './common.js';
import { mapPi } from './events/pi.js';
import { skillText } from './skill.js';
import { DEFAULT_ENTER_DELAY_MS, flagThenId, type AgentIntegration } from './types.js';

/** pi's subcommands: package and login management, not the TUI nerdr watches. */
const SUBCOMMANDS = new Set(['install', 'remove', 'uninstall', 'update', 'list', 'config', 'auth', 'mcp']);
/** Flags that print and exit, or run pi without its TUI. */
const NOT_THE_TUI = ['-p', '--print', '--mode', '--export', '--list-models', '-h', '--help', '-v', '--version'];

export function piExtensionSource(packageRoot: string): string {
  const text = readText(path.join(packageRoot, 'hooks', 'pi', 'nerdr.js'));
  if (text === undefined) throw new NerdrError(`nerdr's pi extension is missing from ${packageRoot}/hooks/pi`, 'nerdr is installed incompletely: install it again (npm install -g nerdr, or npm install in your clone)', { code: 'broken_install' });
  return text;
}

export function planPi(p: PlanInput): LaunchPlan {
  const { ctx, notes, args } = p;
  const files: string[] = [];
  const env: Record<string, string> = {};
  const plain = (): LaunchPlan => ({ argv: [...p.command, ...args], env, notes, wiring: 'off', files });
  if (args[0] !== undefined && SUBCOMMANDS.has(args[0])) return plain();
  if (hasFlag(args, NOT_THE_TUI)) return plain();

  const flags: string[] = [];
  let conversationId: string | undefined;
  const given = flagValue(args, ['--session-id']);
  const session = flagValue(args, ['--session']);
  if (given) conversationId = given;
  else if (session !== undefined) {
    // a full id; a partial id or a file is pi's to resolve, and the extension reports the id
    if (UUID_RE.test(session)) conversationId = session;
  } else if (!hasFlag(args, ['-c', '--continue', '-r', '--resume', '--fork', '--no-session'])) {
    conversationId = newUuid();
    flags.push('--session-id', conversationId);
  }

  if (p.mode !== 'off') {
    const dir = path.join(ctx.stateDir, 'launch', 'pi');
    const extension = path.join(dir, 'nerdr.js');
    writeIfChanged(extension, piExtensionSource(ctx.packageRoot));
    const skill = path.join(dir, 'skills', 'nerdr', 'SKILL.md');
    writeIfChanged(skill, skillText(ctx.packageRoot));
    files.push(extension, skill);
    flags.push('-e', extension, '--skill', path.dirname(skill));
    env.NERDR_PI_EXTENSION = '1';
  }
  return { argv: [...p.command, ...flags, ...args], env, ...(conversationId ? { conversationId } : {}), notes, wiring: p.mode, files };
}

export const pi: AgentIntegration = {
  id: 'pi',
  description: 'pi coding agent',
  command: ['pi'],
  aliases: ['pi'],
  npm: '@earendil-works/pi-coding-agent',
  otherPackages: ['@mariozechner/pi-coding-agent'],
  herdr: { source: 'herdr:pi', reports: 'full-lifecycle', newSessionOn: ['new', 'resume', 'fork'], conversation: 'path', unsequencedSelect: false },
  statusFile: null,
  proven: ['1.6.0'],
  wiring: { modes: ['launch', 'off'], default: 'launch' },
  plan: planPi,
  hooks: { map: mapPi, refine: null },
  files: null,
  launchWiring: '-e <state>/launch/pi/nerdr.js (nerdr\'s extension) + --skill <state>/launch/pi/skills/nerdr + --session-id',
  resume: {
    args: flagThenId('--session'),
    continue: ['--continue'],
    // pi keeps its sessions per folder, so its newest in the folder is the window's
    guessNewest: true,
    strip: { value: ['--session', '--session-id', '--fork'], optional: [], bare: ['-c', '--continue', '-r', '--resume', '--no-session'] },
    idFlags: [['--session-id'], ['--session']],
    idSubcommand: null,
    notFound: /No session found matching/,
  },
  dialogs: null,
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
