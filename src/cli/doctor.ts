// `nerdr doctor`: checks what nerdr needs and says how to fix each problem.

import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { checkTmuxVersion, resolveSocket, serverRunning, tmux } from '../tmux/server.js';
import { serverFiles, stateDir } from '../paths.js';
import { request } from '../supervisor/socket/index.js';
import { STATUS_OPTIONS } from '../tmux/status.js';
import { degradedOn, tmuxFeatures } from '../tmux/features.js';
import { globalOpts } from './context.js';
import { printJson } from './print.js';

interface Check {
  name: string;
  ok: boolean;
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
  const { loadConfig, formatProblem } = await import('../config.js');
  const { configDir } = await import('../paths.js');
  const loaded = loadConfig(configDir());
  checks.push(
    loaded.problems.length === 0
      ? { name: 'config', ok: true, detail: loaded.exists ? loaded.path : `${loaded.path} (none: defaults)` }
      : { name: 'config', ok: false, detail: loaded.problems.map((p) => formatProblem(loaded.path, p)).join('; '), fix: 'correct those keys (docs/config.md); the defaults are used meanwhile' },
  );
  return checks;
}

async function runChecks(cmd: Command): Promise<Check[]> {
  const checks: Check[] = await fileChecks();
  try {
    const version = await checkTmuxVersion();
    checks.push({ name: 'tmux', ok: true, detail: `${version} (nerdr supports tmux 3.2a to 3.7)` });
    const notes = degradedOn(tmuxFeatures(version));
    checks.push({ name: 'tmux features', ok: true, detail: notes.length === 0 ? 'nothing degraded on this version' : `degraded: ${notes.join('; ')}` });
  } catch (err) {
    const e = err as NerdrError;
    checks.push({ name: 'tmux', ok: false, detail: e.message, fix: e.fix });
    return checks;
  }
  const dir = stateDir();
  try {
    const st = statSync(dir);
    const ok = (st.mode & 0o077) === 0;
    checks.push({ name: 'state folder', ok, detail: `${dir} mode ${(st.mode & 0o777).toString(8)}`, ...(ok ? {} : { fix: `chmod 700 ${dir}` }) });
  } catch {
    checks.push({ name: 'state folder', ok: true, detail: `${dir} (created on first use, mode 700)` });
  }
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
    const info = (await request(files.socket, 'nerdr.info', {}, { timeoutMs: 2000 })) as { pid: number; agents: number };
    checks.push({ name: 'supervisor', ok: true, detail: `pid ${info.pid}, ${info.agents} agent(s)` });
    const st = statSync(files.socket);
    const ok = (st.mode & 0o077) === 0;
    checks.push({ name: 'socket', ok, detail: `${files.socket} mode ${(st.mode & 0o777).toString(8)}`, ...(ok ? {} : { fix: 'nerdr supervisor restart' }) });
  } catch {
    checks.push({ name: 'supervisor', ok: true, detail: 'not running (any nerdr command that needs it starts it)' });
  }
  for (const { option, marker } of STATUS_OPTIONS) {
    const r = await tmux(sock, ['show-options', '-gv', option]);
    const ok = r.stdout.includes(marker);
    checks.push({ name: `lights in ${option}`, ok, detail: ok ? 'installed' : 'missing', ...(ok ? {} : { fix: 'nerdr tmux install (or the TPM plugin tmux/nerdr.tmux)' }) });
  }
  return checks;
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
          process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}\n`);
          if (!c.ok && c.fix) process.stdout.write(`     fix: ${c.fix}\n`);
        }
      }
      if (checks.some((c) => !c.ok)) process.exitCode = 1;
    });
}
