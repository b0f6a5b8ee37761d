// `nerdr doctor`: checks what nerdr needs and says how to fix each problem.

import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { exitFor, NerdrError } from '../errors.js';
import { checkTmuxVersion, resolveSocket, serverRunning, tmux } from '../tmux/server.js';
import { serverFiles, stateDir, stateDirProblem } from '../paths.js';
import { request } from '../supervisor/socket/index.js';
import { STATUS_OPTIONS, readsMarker } from '../tmux/status.js';
import { degradedOn, tmuxFeatures } from '../tmux/features.js';
import { globalOpts } from './context.js';
import { printJson } from './print.js';
import { spoolCheck } from './doctor-spool.js';
import { restartsCheck } from './doctor-holder.js';
import { onEventsCheck } from './doctor-on.js';
import { localeCheck, supervisorCheck, type SupervisorInfo } from './doctor-locale.js';

interface Check {
  name: string;
  ok: boolean;
  /** ok, but with a fix worth making: printed as `warn` with its fix. */
  warn?: boolean;
  detail: string;
  fix?: string;
}

/** Rule files and config.toml: what is invalid is named with its fix (they need no tmux). */
async function fileChecks(): Promise<Check[]> {
  const checks: Check[] = [];
  const { ManifestRegistry } = await import('../detect/index.js');
  const problems = new ManifestRegistry().problems();
  checks.push(
    problems.length === 0
      ? { name: 'manifests', ok: true, detail: 'every rule file is valid' }
      : { name: 'manifests', ok: false, detail: problems.map((p) => `${p.path}: ${p.reason}`).join('; '), fix: 'correct or remove the file (nerdr manifests check FILE); the next source is used meanwhile' },
  );
  const { loadConfig, problemText } = await import('../config.js');
  const { configDir } = await import('../paths.js');
  const loaded = loadConfig(configDir());
  checks.push(
    loaded.problems.length === 0
      ? { name: 'config', ok: true, detail: loaded.exists ? loaded.path : `${loaded.path} (none: defaults)` }
      : { name: 'config', ok: false, detail: [`${loaded.path}:`, ...loaded.problems.map((p) => `  ${problemText(p)}`)].join('\n'), fix: 'correct those keys (docs/config.md); the defaults are used meanwhile' },
  );
  return checks;
}

/** `<program> --version`, its first version-looking word; null when it does not answer in 5 s. */
export function programVersion(program: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(program, ['--version'], { timeout: 5000, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
      const m = /\d+\.\d+(\.\d+)?([-.+][0-9A-Za-z.]+)?/.exec(`${stdout}\n${stderr}`);
      resolve(m ? m[0] : err ? null : (stdout.trim().split('\n')[0] ?? null));
    });
  });
}

/** Which agents are installed, their versions, and whether the conformance suite proved that version. */
async function agentChecks(): Promise<Check[]> {
  const { AGENTS, installHint } = await import('../integrations/agents.js');
  const { onPath } = await import('../integrations/plan.js');
  const specs = Object.values(AGENTS).filter((a) => a.id !== 'demo');
  const found = await Promise.all(specs.map(async (a) => (onPath(a.command[0]!) ? { a, version: await programVersion(a.command[0]!) } : { a, version: undefined })));
  const installed = found.filter((f) => f.version !== undefined);
  const checks: Check[] = installed.map(({ a, version }) => {
    const proven = a.proven ?? [];
    const how = !version
      ? 'version unknown'
      : proven.includes(version)
        ? `${version}, proven by nerdr's conformance suite`
        : proven.length
          ? `${version}, not the proven ${proven.join('/')}: detection may lag behind its screens (docs/conformance.md)`
          : `${version} (its rules are written from documented screens)`;
    return { name: `agent ${a.id}`, ok: true, detail: `${a.description}: ${how}` };
  });
  const missing = found.filter((f) => f.version === undefined && f.a.npm).map((f) => `${f.a.id} (${installHint(f.a).replace(/^install it: /, '')})`);
  checks.push({ name: 'agents', ok: true, detail: `${installed.length} installed${missing.length ? `; not installed: ${missing.join(', ')}` : ''}` });
  return checks;
}

/** git, for `nerdr new --worktree` and `nerdr worktree`: missing or older than 2.17 is a failure with the fix. */
async function gitCheck(): Promise<Check> {
  const { checkGitVersion } = await import('../worktrees/git.js');
  try {
    return { name: 'git', ok: true, detail: `${await checkGitVersion()} (worktrees need 2.17 or newer)` };
  } catch (err) {
    const e = err as NerdrError;
    return { name: 'git', ok: false, detail: e.message, ...(e.fix ? { fix: e.fix } : {}) };
  }
}

async function runChecks(cmd: Command): Promise<Check[]> {
  const checks: Check[] = [...(await fileChecks()), ...(await agentChecks()), await gitCheck()];
  try {
    const version = await checkTmuxVersion();
    checks.push({ name: 'tmux', ok: true, detail: `${version} (nerdr supports tmux 3.2a to 3.7)` });
    const notes = degradedOn(tmuxFeatures(version));
    checks.push({ name: 'tmux features', ok: true, detail: notes.length === 0 ? 'nothing degraded on this version' : `degraded: ${notes.join('; ')}` });
    checks.push(localeCheck(process.env));
  } catch (err) {
    const e = err as NerdrError;
    checks.push({ name: 'tmux', ok: false, detail: e.message, fix: e.fix });
    return checks;
  }
  // the same rules as every command that starts the supervisor (paths.ts), without changing anything
  const dir = stateDir();
  const problem = stateDirProblem();
  if (problem) checks.push({ name: 'state folder', ok: false, detail: problem.message, ...(problem.fix ? { fix: problem.fix } : {}) });
  else checks.push({ name: 'state folder', ok: true, detail: existsSync(dir) ? `${dir} (private)` : `${dir} (created on first use, mode 700)` });
  let sock: string;
  try {
    const g = globalOpts(cmd);
    sock = resolveSocket({ name: g.L, socket: g.S });
  } catch (err) {
    const e = err as NerdrError;
    checks.push({ name: 'tmux server', ok: false, detail: e.message, fix: e.fix });
    return checks;
  }
  if (!(await serverRunning(sock))) {
    checks.push({ name: 'tmux server', ok: false, detail: `none running at ${sock}`, fix: 'start tmux (`tmux new -s work`)' });
    return checks;
  }
  checks.push({ name: 'tmux server', ok: true, detail: sock });
  const files = serverFiles(sock);
  try {
    const info = (await request(files.socket, 'nerdr.info', {}, { timeoutMs: 2000 })) as SupervisorInfo;
    checks.push(supervisorCheck(info));
    const st = statSync(files.socket);
    const ok = (st.mode & 0o077) === 0;
    checks.push({ name: 'socket', ok, detail: `${files.socket} mode ${(st.mode & 0o777).toString(8)}`, ...(ok ? {} : { fix: 'nerdr supervisor restart' }) });
    checks.push(await spoolCheck(files.spool, files.log, true));
    checks.push(restartsCheck(files.starts, files.log));
  } catch {
    checks.push({ name: 'supervisor', ok: true, detail: 'not running (any nerdr command that needs it starts it)' });
    checks.push(await spoolCheck(files.spool, files.log, false));
    checks.push(restartsCheck(files.starts, files.log));
  }
  checks.push(await onCheck(files));
  const plugin = (await tmux(sock, ['show-options', '-gqv', '@nerdr-plugin-warnings'])).stdout.trim();
  if (plugin) checks.push({ name: 'tmux plugin', ok: false, detail: plugin, fix: 'choose free keys for @nerdr-key-next / @nerdr-key-dash (tmux list-keys -T prefix), then reload your tmux config' });
  for (const { option, marker } of STATUS_OPTIONS) {
    const r = await tmux(sock, ['show-options', '-gv', option]);
    // through a theme's options too (catppuccin's status module holds the summary)
    const ok = await readsMarker(async (args) => (await tmux(sock, args)).stdout, r.stdout, marker);
    checks.push({ name: `lights in ${option}`, ok, detail: ok ? 'installed' : 'missing', ...(ok ? {} : { fix: 'nerdr tmux install (or the TPM plugin tmux/nerdr.tmux)' }) });
  }
  return checks;
}

/** [[on]]: its rules and its last failures (src/cli/doctor-on.ts). */
async function onCheck(files: ReturnType<typeof serverFiles>): Promise<Check> {
  const { loadConfig } = await import('../config.js');
  const { configDir } = await import('../paths.js');
  const { onFiles } = await import('../supervisor/on-events-store.js');
  return onEventsCheck(onFiles(files.dir, files.key).failures, loadConfig(configDir()).config.on, files.log);
}

export function register(program: Command): void {
  program
    .command('doctor')
    .description('check tmux, the supervisor, the socket folder and the lights; say what to fix')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const checks = await runChecks(cmd);
      if (opts.json) printJson(checks);
      else {
        for (const c of checks) {
          // a detail of several lines (one per problem) is indented under its check
          process.stdout.write(`${c.ok ? (c.warn ? 'warn' : 'ok  ') : 'FAIL'} ${c.name}: ${c.detail.split('\n').join('\n     ')}\n`);
          if ((!c.ok || c.warn) && c.fix) process.stdout.write(`     fix: ${c.fix}\n`);
        }
      }
      if (checks.some((c) => !c.ok)) process.exitCode = exitFor('checks_failed');
    });
}
