// opencode: nerdr's plugin (hooks/opencode/nerdr.js) loaded for this launch only, named by a
// file:// URL in OPENCODE_CONFIG_CONTENT (inline config merged over the user's own: their
// ~/.config/opencode, the project's .opencode folders and opencode.json all still apply,
// docs/agents.md). Not through an extra OPENCODE_CONFIG_DIR: opencode npm-installs its plugin
// SDK into every config dir that has plugins, which needs the registry and once kept the screen
// blank for a minute (conformance suite). The plugin imports only node builtins.
//   home      ~/.config/opencode/plugins/nerdr.js ($XDG_CONFIG_HOME)
//   worktree  <cwd>/.opencode/plugins/nerdr.js, kept out of git

import path from 'node:path';
import { NerdrError } from '../errors.js';
import type { LaunchPlan, PlanInput } from './types.js';
import { hasFlag, isObj, parseJson, readText, writeIfChanged, xdgConfigHome } from './common.js';
import { installFile, type FileIntegration, type InstallCtx } from './install.js';
import { mapOpencode } from './events/opencode.js';
import { DEFAULT_ENTER_DELAY_MS, flagThenId, type AgentIntegration, type ResumeSpec } from './types.js';
import { skillText } from './skill.js';

const MARK = 'NERDR_INTEGRATION=opencode';

export function opencodePluginSource(packageRoot: string): string {
  const text = readText(path.join(packageRoot, 'hooks', 'opencode', 'nerdr.js'));
  if (text === undefined) throw new NerdrError(`nerdr's opencode plugin is missing from ${packageRoot}/hooks/opencode`, 'nerdr is installed incompletely: install it again (npm install -g nerdr, or npm install in your clone)', { code: 'broken_install' });
  return text;
}

export const opencodeFiles: FileIntegration = {
  agent: 'opencode',
  file: (mode, c) => mode === 'home'
    ? path.join(xdgConfigHome(c.env), 'opencode', 'plugins', 'nerdr.js')
    : path.join(c.cwd, '.opencode', 'plugins', 'nerdr.js'),
  apply(existing, c) {
    if (existing !== undefined && !existing.includes(MARK)) return { leave: 'a nerdr.js without nerdr\'s marker is there (your edits): left as it is' };
    return { text: opencodePluginSource(c.packageRoot) };
  },
  remove: (existing) => (existing.includes(MARK) ? null : undefined),
  current: (existing, c) => existing === opencodePluginSource(c.packageRoot),
  ours: (existing) => existing.includes(MARK),
};

/** What differs between opencode and its forks (Kilo Code) in how nerdr's plugin reaches them. */
export interface OpencodeFlavor {
  /** The integration's id: its launch folder, and the agent the plugin reports as. */
  agent: string;
  /** The variable of inline config merged over the user's (OPENCODE_CONFIG_CONTENT, KILO_CONFIG_CONTENT). */
  contentVar: string;
  /** The variable that turns plugins off (OPENCODE_PURE, KILO_PURE). */
  pureVar: string;
  /** The home/worktree plugin files; null when only the launch mode is offered. */
  files: FileIntegration | null;
}

/** Subcommands (run, serve, session …) are not the TUI nerdr watches. */
const NOT_THE_TUI = ['run', 'serve', 'web', 'acp', 'session', 'export', 'import', 'auth', 'models', 'stats', 'upgrade', 'uninstall', 'github', 'agent', 'mcp', 'debug', 'db', 'plugin'];

export function planOpencodeLike(p: PlanInput, flavor: OpencodeFlavor): LaunchPlan {
  const { ctx, notes, env: userEnv } = p;
  const argv = [...p.command, ...p.args];
  const files: string[] = [];
  const env: Record<string, string> = {};
  if (p.mode === 'off') return { argv, env, notes, wiring: 'off', files };
  const first = p.args[0];
  if (first !== undefined && !first.startsWith('-') && NOT_THE_TUI.includes(first)) return { argv, env, notes, wiring: 'off', files };
  if (hasFlag(p.args, ['--pure']) || userEnv[flavor.pureVar]) {
    notes.push(`${flavor.agent} --pure loads no plugins: read from the screen only`);
    return { argv, env, notes, wiring: 'off', files };
  }
  const source = opencodePluginSource(ctx.packageRoot);
  if ((p.mode === 'home' || p.mode === 'worktree') && flavor.files) {
    const c: InstallCtx = { env: userEnv, cwd: ctx.cwd, nerdrBin: ctx.nerdrBin, packageRoot: ctx.packageRoot, stateDir: ctx.stateDir };
    const r = installFile(flavor.files, p.mode, c);
    notes.push(...r.notes);
    files.push(...r.files);
  } else {
    const plugin = path.join(ctx.stateDir, 'launch', flavor.agent, 'nerdr.js');
    writeIfChanged(plugin, source);
    files.push(plugin);
    const spec = `file://${plugin}`;
    const inline = userEnv[flavor.contentVar];
    const parsed = inline === undefined ? {} : parseJson(inline);
    if (!isObj(parsed)) {
      notes.push(`your ${flavor.contentVar} is not a JSON object: nerdr's plugin not added; read from the screen`);
      return { argv, env, notes, wiring: 'off', files };
    }
    const plugins = Array.isArray(parsed['plugin']) ? (parsed['plugin'] as unknown[]) : [];
    // the nerdr skill: a folder of skills for this launch (opencode's `skills.paths`; the
    // opencode 1.18 binary reads that key, not the `skill.paths` of its earlier changelog)
    const skills = path.join(ctx.stateDir, 'launch', flavor.agent, 'skills');
    const skillFile = path.join(skills, 'nerdr', 'SKILL.md');
    writeIfChanged(skillFile, skillText(ctx.packageRoot));
    files.push(skillFile);
    const given = isObj(parsed['skills']) ? (parsed['skills'] as Record<string, unknown>) : {};
    const paths = Array.isArray(given['paths']) ? (given['paths'] as unknown[]) : [];
    env[flavor.contentVar] = JSON.stringify({ ...parsed, plugin: [...plugins, spec], skills: { ...given, paths: [...paths, skills] } });
  }
  env.NERDR_OPENCODE_PLUGIN = '1';
  if (flavor.agent !== 'opencode') env.NERDR_PLUGIN_AGENT = flavor.agent;
  return { argv, env, notes, wiring: p.mode, files };
}

export function planOpencode(p: PlanInput): LaunchPlan {
  return planOpencodeLike(p, { agent: 'opencode', contentVar: 'OPENCODE_CONFIG_CONTENT', pureVar: 'OPENCODE_PURE', files: opencodeFiles });
}

/** How opencode (and Kilo, its fork) resumes: `--session <ses_id>`, newest `--continue`. */
export const OPENCODE_RESUME: ResumeSpec = {
  args: flagThenId('--session'),
  continue: ['--continue'],
  guessNewest: true,
  strip: { value: ['-s', '--session'], optional: [], bare: ['-c', '--continue', '--fork'] },
  idFlags: [['-s', '--session']],
  idSubcommand: null,
  notFound: /session not found|no session (found|with)|NotFoundError/i,
};

/** opencode, as nerdr starts, wires, reads and resumes it. */
export const opencode: AgentIntegration = {
  id: 'opencode',
  description: 'opencode',
  command: ['opencode'],
  aliases: ['opencode', 'opencode2', 'open-code'],
  npm: 'opencode-ai',
  otherPackages: [],
  herdr: { source: 'herdr:opencode', reports: 'full-lifecycle', newSessionOn: ['select'], conversation: 'id', unsequencedSelect: true },
  statusFile: null,
  proven: ['1.18.33'],
  wiring: { modes: ['launch', 'home', 'worktree', 'off'], default: 'launch' },
  plan: planOpencode,
  hooks: { map: mapOpencode, refine: null },
  files: opencodeFiles,
  launchWiring: 'OPENCODE_CONFIG_CONTENT plugin file://<state>/launch/opencode/nerdr.js + skills.paths <state>/launch/opencode/skills (the nerdr skill)',
  resume: OPENCODE_RESUME,
  // test/agents/screens/opencode/permission.txt: "△ Permission required", then the choices on
  // one line, the selected one on its own background (⇆ moves, Enter confirms); Esc refuses
  dialogs: { top: /Permission required/, row: ['Allow once', 'Allow always', 'Reject'], denyKeys: ['Escape'] },
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
