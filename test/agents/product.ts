// What the nerdr under test can do yet. Assertions about features that have not landed are
// reported as pending (with the reason) instead of failing; when the feature lands they run.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './versions.js';

const DIST = path.join(REPO_ROOT, 'dist');

function read(rel: string): string {
  try {
    return readFileSync(path.join(DIST, rel), 'utf8');
  } catch {
    return '';
  }
}

function anyDist(dir: string, re: RegExp): boolean {
  try {
    return readdirSync(path.join(DIST, dir), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.js'))
      .some((f) => re.test(read(path.join(dir, f))));
  } catch {
    return false;
  }
}

/** The supervisor calls arbiter.seen() when a client views the window (the "seen" rule). */
export function hasSeenRule(): boolean {
  return anyDist('supervisor', /\.seen\(\)/);
}

/**
 * `nerdr new` wires the agent's hooks at launch: dist/cli/new.js goes through launchPlan
 * (src/integrations/launch.ts). The file alone is not enough: tsc emits it while it is unused.
 */
export function hasLaunchWiring(): boolean {
  // `nerdr new` plans the launch through integrations/plan.js (before: in cli/new.js itself)
  return existsSync(path.join(DIST, 'integrations', 'launch.js')) && (/launchPlan/.test(read('cli/new.js')) || (/planLaunch/.test(read('cli/new.js')) && /launchPlan/.test(read('integrations/plan.js'))));
}

/** nerdr itself passes --no-daemon to Codex (then the suite must not pass it twice: codex refuses). */
export function launchAddsCodexNoDaemon(): boolean {
  return hasLaunchWiring() && /--no-daemon/.test(read('integrations/codex.js'));
}

export function hasCommand(name: string): boolean {
  try {
    const help = execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'nerdr.js'), '--help'], { encoding: 'utf8' });
    return new RegExp(`^\\s+${name}\\b`, 'm').test(help);
  } catch {
    return false;
  }
}

export function nerdrCommit(): string {
  try {
    const head = execFileSync('git', ['-C', REPO_ROOT, 'log', '-1', '--format=%h %cs'], { encoding: 'utf8' }).trim();
    return head;
  } catch {
    return 'unknown';
  }
}
