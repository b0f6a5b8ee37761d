// `nerdr integrations status|install|uninstall`: how each agent is wired to nerdr's hooks, and the
// opt-in home/worktree files (docs/agents.md, docs/config.md).

import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { configDir, nerdrBin, packageRoot, stateDir } from '../paths.js';
import { agentConfig, formatProblem, loadConfig } from '../config.js';
import { AGENTS } from '../integrations/agents.js';
import { installableModes, integrationFor, wiringFor } from '../integrations/index.js';
import { which } from '../integrations/common.js';
import { fileStatus, installFile, requireMode, uninstallFile, usesHomeFile, type FileIntegration, type InstallCtx, type InstallResult, type FileStatus } from '../integrations/install.js';
import { codexHome, codexTrust, installCodexSkill, removeCodexSkill, removeCodexTrust, trustCodexHooks, type CodexTrust } from '../integrations/codex.js';
import { printJson, table } from './print.js';

function installCtx(cwd: string): InstallCtx {
  return { env: process.env, cwd, nerdrBin, packageRoot, stateDir: stateDir() };
}

function version(program: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(program, ['--version'], { timeout: 3000, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout) => {
      if (err) return resolve(undefined);
      const line = String(stdout).split('\n').map((l) => l.trim()).find((l) => /\d+\.\d+/.test(l));
      resolve(line ? (/\d+\.\d+[\w.+-]*/.exec(line)?.[0] ?? line) : undefined);
    });
  });
}

export interface AgentIntegrationStatus {
  agent: string;
  description: string;
  command: string[];
  installed: boolean;
  path?: string;
  version?: string;
  mode: string;
  modes: string[];
  wiring: string;
  files: FileStatus[];
  launchFiles: string[];
  codexTrust?: { trusted: boolean; reason?: string };
}

function launchFiles(agent: string): string[] {
  const dir = path.join(stateDir(), 'launch', agent);
  try {
    return readdirSync(dir).map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

export async function integrationsStatus(cwd: string, opts: { versions?: boolean; codexProbe?: boolean } = {}): Promise<{ agents: AgentIntegrationStatus[]; problems: string[] }> {
  const loaded = loadConfig(configDir());
  const problems = loaded.problems.map((p) => formatProblem(loaded.path, p));
  const c = installCtx(cwd);
  const agents = await Promise.all(
    Object.values(AGENTS).filter((s) => s.id !== 'demo').map(async (spec): Promise<AgentIntegrationStatus> => {
      const ac = agentConfig(loaded.config, spec.id);
      const command = ac.command ?? spec.command;
      const found = which(command[0]!);
      const w = wiringFor(spec.id);
      const mode = ac.hooks ? ac.install : 'off';
      const st: AgentIntegrationStatus = {
        agent: spec.id, description: spec.description, command, installed: found !== undefined, mode, modes: [...w.modes], wiring: '', files: [], launchFiles: launchFiles(spec.id),
        ...(found ? { path: found } : {}),
      };
      if (found && opts.versions !== false) {
        const v = await version(found);
        if (v) st.version = v;
      }
      const integ = spec.files;
      if (integ) for (const m of installableModes(spec.id)) {
        const fs = fileStatus(integ, m, c);
        if (fs.present || m === mode) st.files.push(fs);
      }
      if (spec.id === 'codex' && found && mode !== 'off' && opts.codexProbe !== false) {
        const t: CodexTrust = await codexTrust({ stateDir: c.stateDir, nerdrBin, cwd, env: process.env, codexCommand: command });
        st.codexTrust = { trusted: t.trusted, ...(t.reason ? { reason: t.reason } : {}) };
      }
      if (integ?.loadedWhenPresent && usesHomeFile(integ, mode, ac.hooks, c)) st.mode = 'home';
      if (w.modes.length === 1) st.wiring = 'no hooks: read from the screen';
      else if (st.mode === 'off') st.wiring = integ?.loadedWhenPresent && ac.hooks ? `off: read from the screen (\`nerdr integrations install ${spec.id}\` adds hooks)` : 'off: read from the screen';
      else if (mode === 'launch') st.wiring = spec.launchWiring ?? 'launch';
      else if (spec.id === 'codex') st.wiring = `home: codex trusts nerdr's -c hooks (${path.join(codexHome(process.env), 'config.toml')} [hooks.state]) + the nerdr skill (${path.join(codexHome(process.env), 'skills', 'nerdr')})`;
      else st.wiring = `${st.mode}: ${integ?.file(st.mode as 'home' | 'worktree', c) ?? ''}`;
      if (spec.id === 'codex' && st.codexTrust) st.wiring += st.codexTrust.trusted ? ' — trusted' : ' — not trusted yet (notify only)';
      return st;
    }),
  );
  return { agents, problems };
}

function describeFile(f: FileStatus): string {
  if (!f.present) return `${f.file} (not there)`;
  if (!f.ours) return `${f.file} (not nerdr's / turned off)`;
  return `${f.file} (${f.current ? 'current' : 'outdated'}${f.excluded ? ', git-excluded' : ''})`;
}

function printResult(r: InstallResult, verb: string): void {
  process.stdout.write(`${r.agent}: ${r.changed ? verb : 'nothing to change'} (${r.mode}) ${r.files[0] ?? ''}\n`);
  for (const n of r.notes) process.stdout.write(`  note: ${n}\n`);
}

export function register(program: Command): void {
  const integrations = program.command('integrations').description('how agents report to nerdr: status, and opt-in hook files');

  integrations
    .command('status')
    .description('per agent: installed?, version, how its hooks are wired, what nerdr has written where')
    .option('--cwd <dir>', 'folder for worktree files (default: here)')
    .option('--json', 'print JSON')
    .action(async (opts: { cwd?: string; json?: boolean }) => {
      const cwd = path.resolve(opts.cwd ?? process.cwd());
      const { agents, problems } = await integrationsStatus(cwd);
      for (const p of problems) process.stderr.write(`nerdr: ${p}\n`);
      if (opts.json) return printJson({ agents, problems });
      const rows = agents.map((a) => [a.agent, a.installed ? (a.version ?? 'yes') : 'no', a.mode, a.wiring]);
      process.stdout.write(table(['AGENT', 'INSTALLED', 'MODE', 'WIRING'], rows));
      const written = agents.flatMap((a) => [...a.files.map((f) => `${a.agent}: ${describeFile(f)}`), ...a.launchFiles.map((f) => `${a.agent}: ${f}`)]);
      if (written.length > 0) process.stdout.write(`\nfiles:\n${written.map((w) => `  ${w}`).join('\n')}\n`);
    });

  integrations
    .command('install <agent>')
    .description('write nerdr\'s hooks into the agent\'s own config (home) or this folder (worktree); codex: record its trust')
    .option('--mode <mode>', 'home or worktree', 'home')
    .option('--cwd <dir>', 'folder for --mode worktree (default: here)')
    .action(async (agent: string, opts: { mode: string; cwd?: string }) => {
      const cwd = path.resolve(opts.cwd ?? process.cwd());
      if (agent === 'codex') {
        requireMode(agent, opts.mode, installableModes(agent));
        const spec = AGENTS.codex!;
        const ac = agentConfig(loadConfig(configDir()).config, 'codex');
        const command = ac.command ?? spec.command;
        if (!which(command[0]!)) throw new NerdrError('codex is not on PATH', 'install codex first: its trust is recorded by codex itself');
        const t = await trustCodexHooks({ stateDir: stateDir(), nerdrBin, cwd, env: process.env, codexCommand: command });
        if (!t.trusted) throw new NerdrError(`codex did not trust nerdr's hooks: ${t.reason ?? 'unknown reason'}`, 'check `codex features list` (hooks must be enabled) and run again');
        process.stdout.write(`codex: trusts nerdr's hooks (${path.join(codexHome(process.env), 'config.toml')})\n`);
        const skill = installCodexSkill(process.env, packageRoot);
        if (typeof skill.result === 'string') process.stderr.write(`nerdr: ${skill.result}\n`);
        else process.stdout.write(`codex: the nerdr skill ${skill.result ? 'written to' : 'current in'} ${skill.file}\n`);
        return;
      }
      const integ = integrationFor(agent)?.files;
      if (!integ) throw new NerdrError(`${agent} has nothing to install`, AGENTS[agent] ? `${agent} is wired at launch (or not at all); see nerdr integrations status` : `known agents: ${Object.keys(AGENTS).join(', ')}`);
      const mode = requireMode(agent, opts.mode, installableModes(agent));
      printResult(installFile(integ, mode, installCtx(cwd)), 'installed');
    });

  integrations
    .command('uninstall <agent>')
    .description('remove nerdr\'s own entries (home and worktree unless --mode); other entries stay')
    .option('--mode <mode>', 'home or worktree (default: both)')
    .option('--cwd <dir>', 'folder for worktree files (default: here)')
    .action(async (agent: string, opts: { mode?: string; cwd?: string }) => {
      const cwd = path.resolve(opts.cwd ?? process.cwd());
      if (agent === 'codex') {
        const spec = AGENTS.codex!;
        const command = agentConfig(loadConfig(configDir()).config, 'codex').command ?? spec.command;
        const t = await codexTrust({ stateDir: stateDir(), nerdrBin, cwd, env: process.env, codexCommand: command });
        const removed = t.hashes ? removeCodexTrust(process.env, t.hashes) : [];
        const skill = removeCodexSkill(process.env);
        if (removed.length > 0) process.stdout.write(`codex: removed nerdr's ${removed.length} trust entries\n`);
        if (skill) process.stdout.write(`codex: removed the nerdr skill from ${path.join(codexHome(process.env), 'skills')}\n`);
        if (removed.length === 0 && !skill) process.stdout.write('codex: nothing to change\n');
        return;
      }
      const integ = integrationFor(agent)?.files;
      if (!integ) throw new NerdrError(`${agent} has nothing to uninstall`, '`nerdr integrations status` shows what each agent has installed');
      const modes = opts.mode ? [requireMode(agent, opts.mode, installableModes(agent))] : installableModes(agent);
      const c = installCtx(cwd);
      for (const m of modes) {
        // a folder of nerdr's own (copilot's plugin, gemini's extension) is removed whole once empty
        const stopAt = integ.folder ? path.dirname(integ.folder(m, c)) : m === 'worktree' ? cwd : undefined;
        printResult(uninstallFile(integ, m, c, stopAt), 'removed');
      }
    });
}
