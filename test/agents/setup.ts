// globalSetup of the conformance suite: installs the pinned agent CLIs with npm into
// .cache/agents (outside git) and tells the tests which ones work. Nothing here fails the
// run: an agent that cannot be installed is skipped with the reason.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { AGENT_PACKAGES, installPrefix, REPO_ROOT, RUNS_DIR, versionSpecs, type InstallReport } from './versions.js';

declare module 'vitest' {
  export interface ProvidedContext {
    agentInstall: InstallReport;
    nerdrProblem: string;
  }
}

export function installedVersion(prefix: string, pkg: string): string | null {
  try {
    return (JSON.parse(readFileSync(path.join(prefix, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return null;
  }
}

function binWorks(binDir: string, bin: string): string | null {
  // binDir first, as the agent gets it: a runtime installed beside it (versions.ts) is its `node`
  const r = spawnSync(path.join(binDir, bin), ['--version'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: `${binDir}:${process.env.PATH ?? ''}`, HOME: path.join(RUNS_DIR, 'version-home'), LANG: 'C.UTF-8' },
  });
  if (r.status === 0) return null;
  return `\`${bin} --version\` failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr || r.stdout || '').trim().slice(0, 300)}`;
}

/** The newest release of a package on the registry, or an error text. */
function latestOf(pkg: string): { version: string } | { error: string } {
  const r = spawnSync('npm', ['view', pkg, 'version'], { encoding: 'utf8', timeout: 60_000 });
  const v = r.stdout?.trim();
  return r.status === 0 && v ? { version: v } : { error: `npm view ${pkg} version failed: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}` };
}

/** npm install of exact versions into a prefix (its own package.json, so later installs keep them). */
export function install(prefix: string, specs: string[]): string {
  mkdirSync(prefix, { recursive: true });
  const manifest = path.join(prefix, 'package.json');
  if (!existsSync(manifest)) writeFileSync(manifest, JSON.stringify({ name: 'nerdr-agent-cache', private: true }, null, 2) + '\n');
  process.stderr.write(`[agents] installing ${specs.join(' ')} into ${prefix} …\n`);
  // Install scripts are not needed: each package ships its binary in an optional dependency.
  // Saved in the prefix's own package.json: npm removes what a folder's manifest does not name,
  // so an agent installed --no-save was gone after the next install of another one.
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--save', '--save-exact', '--prefix', prefix, ...specs], { encoding: 'utf8', timeout: 10 * 60_000, cwd: prefix });
  return r.status === 0 ? '' : `npm install ${specs.join(' ')} failed: ${(r.stderr || r.error?.message || '').trim().split('\n').slice(-5).join(' | ')}`;
}

export default function setup(project: TestProject): void {
  rmSync(RUNS_DIR, { recursive: true, force: true });
  mkdirSync(path.join(RUNS_DIR, 'version-home'), { recursive: true });
  // NERDR_AGENTS=claude,copilot: only these agents are installed and driven
  const only = (process.env.NERDR_AGENTS ?? '').split(',').map((a) => a.trim()).filter((a) => a !== '');
  const wanted = AGENT_PACKAGES.filter((p) => only.length === 0 || only.includes(p.agent));
  // NERDR_AGENT_VERSIONS=pinned|latest|<agent>@<version>,… (versions.ts)
  const specs = versionSpecs(process.env.NERDR_AGENT_VERSIONS);
  const report: InstallReport = {};
  const chosen = new Map<string, { version: string; pinned: boolean; prefix: string }>();
  for (const p of wanted) {
    let version = specs[p.agent]!;
    if (version === 'latest') {
      const l = latestOf(p.pkg);
      if ('error' in l) {
        report[p.agent] = { ok: false, version: '', reason: l.error };
        continue;
      }
      version = l.version;
    }
    const pinned = version === p.version;
    chosen.set(p.agent, { version, pinned, prefix: installPrefix(p.agent, version, pinned, p.runtime) });
  }
  // one npm install per prefix, of what it lacks
  const errors = new Map<string, string>();
  const byPrefix = new Map<string, string[]>();
  for (const p of wanted) {
    const c = chosen.get(p.agent);
    if (!c) continue;
    const runtimeMissing = p.runtime !== undefined && installedVersion(c.prefix, p.runtime.slice(0, p.runtime.lastIndexOf('@'))) === null;
    if (installedVersion(c.prefix, p.pkg) !== c.version || runtimeMissing) {
      byPrefix.set(c.prefix, [...(byPrefix.get(c.prefix) ?? []), `${p.pkg}@${c.version}`, ...(p.runtime ? [p.runtime] : [])]);
    }
  }
  for (const [prefix, list] of byPrefix) errors.set(prefix, install(prefix, list));
  for (const p of AGENT_PACKAGES) {
    const c = chosen.get(p.agent);
    if (!wanted.includes(p)) report[p.agent] = { ok: false, version: '', reason: `not in NERDR_AGENTS=${only.join(',')}` };
    else if (!c) {
      /* reported above: the newest version could not be learned */
    } else {
      const version = installedVersion(c.prefix, p.pkg);
      const binDir = path.join(c.prefix, 'node_modules', '.bin');
      if (version !== c.version) report[p.agent] = { ok: false, version: version ?? '', reason: `${p.pkg}@${c.version} is not installed (${errors.get(c.prefix) || `found ${version ?? 'nothing'}`})` };
      else {
        const broken = binWorks(binDir, p.bin);
        report[p.agent] = broken ? { ok: false, version, reason: broken } : { ok: true, version, binDir, pinned: c.pinned };
      }
    }
    const s = report[p.agent]!;
    process.stderr.write(`[agents] ${p.agent}: ${s.ok ? `${p.pkg}@${s.version} ready${s.pinned ? ' (pinned)' : ''}` : `SKIPPED — ${s.reason}`}\n`);
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
