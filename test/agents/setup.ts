// globalSetup of the conformance suite: installs the pinned agent CLIs with npm into
// .cache/agents (outside git) and tells the tests which ones work. Nothing here fails the
// run: an agent that cannot be installed is skipped with the reason.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { AGENT_PACKAGES, BIN_DIR, CACHE_DIR, REPO_ROOT, RUNS_DIR, type InstallReport } from './versions.js';

declare module 'vitest' {
  export interface ProvidedContext {
    agentInstall: InstallReport;
    nerdrProblem: string;
  }
}

function installedVersion(pkg: string): string | null {
  try {
    return (JSON.parse(readFileSync(path.join(CACHE_DIR, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return null;
  }
}

function binWorks(bin: string): string | null {
  const r = spawnSync(path.join(BIN_DIR, bin), ['--version'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '', HOME: path.join(RUNS_DIR, 'version-home'), LANG: 'C.UTF-8' },
  });
  if (r.status === 0) return null;
  return `\`${bin} --version\` failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr || r.stdout || '').trim().slice(0, 300)}`;
}

export default function setup(project: TestProject): void {
  rmSync(RUNS_DIR, { recursive: true, force: true });
  mkdirSync(path.join(RUNS_DIR, 'version-home'), { recursive: true });
  // NERDR_AGENTS=claude,copilot: only these agents are installed and driven
  const only = (process.env.NERDR_AGENTS ?? '').split(',').map((a) => a.trim()).filter((a) => a !== '');
  const wanted = AGENT_PACKAGES.filter((p) => only.length === 0 || only.includes(p.agent));
  const missing = wanted.filter((p) => installedVersion(p.pkg) !== p.version);
  let installError = '';
  if (missing.length > 0) {
    mkdirSync(CACHE_DIR, { recursive: true });
    const manifest = path.join(CACHE_DIR, 'package.json');
    if (!existsSync(manifest)) writeFileSync(manifest, JSON.stringify({ name: 'nerdr-agent-cache', private: true }, null, 2) + '\n');
    const specs = missing.map((p) => `${p.pkg}@${p.version}`);
    process.stderr.write(`[agents] installing ${specs.join(' ')} into ${CACHE_DIR} …\n`);
    // Install scripts are not needed: each package ships its binary in an optional dependency.
    // Saved in the cache's own package.json: npm removes what a folder's manifest does not name,
    // so an agent installed --no-save was gone after the next install of another one.
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--save', '--save-exact', '--prefix', CACHE_DIR, ...specs], {
      encoding: 'utf8',
      timeout: 10 * 60_000,
      cwd: CACHE_DIR,
    });
    if (r.status !== 0) installError = `npm install ${specs.join(' ')} failed: ${(r.stderr || r.error?.message || '').trim().split('\n').slice(-5).join(' | ')}`;
  }
  const report: InstallReport = {};
  for (const p of AGENT_PACKAGES) {
    const version = installedVersion(p.pkg);
    if (!wanted.includes(p)) report[p.agent] = { ok: false, version: version ?? '', reason: `not in NERDR_AGENTS=${only.join(',')}` };
    else if (version !== p.version) report[p.agent] = { ok: false, version: version ?? '', reason: `${p.pkg}@${p.version} is not installed (${installError || `found ${version ?? 'nothing'}`})` };
    else {
      const broken = binWorks(p.bin);
      report[p.agent] = broken ? { ok: false, version, reason: broken } : { ok: true, version };
    }
    const s = report[p.agent]!;
    process.stderr.write(`[agents] ${p.agent}: ${s.ok ? `${p.pkg}@${s.version} ready` : `SKIPPED — ${s.reason}`}\n`);
  }
  project.provide('agentInstall', report);

  let nerdrProblem = '';
  if (!existsSync(path.join(REPO_ROOT, 'dist', 'cli', 'main.js'))) nerdrProblem = 'dist/ is missing: run `npm run build` first';
  else {
    try {
      execFileSync('tmux', ['-V'], { encoding: 'utf8' });
    } catch {
      nerdrProblem = 'tmux is not installed';
    }
  }
  if (nerdrProblem) process.stderr.write(`[agents] every agent SKIPPED — ${nerdrProblem}\n`);
  project.provide('nerdrProblem', nerdrProblem);
}
