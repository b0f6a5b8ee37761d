// Where an agent's launch is planned for both the CLI (`nerdr new`, `restore --dry-run`) and the
// supervisor (`nerdr.restore`): whether a program is on a PATH, and the launch with nerdr's
// wiring (src/integrations/launch.ts) under the user's config.

import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** Whether `program` (a name looked up on `envPath`, or a path) is an executable file. */
export function onPath(program: string, envPath = process.env.PATH ?? ''): boolean {
  if (program.includes('/')) return isExecutable(program);
  return envPath.split(path.delimiter).some((dir) => dir && isExecutable(path.join(dir, program)));
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The agent's launch with nerdr's hooks wired in (src/integrations/launch.ts), under the config
 * in the config folder; each problem of that config goes to `warn`.
 */
export async function planLaunch(agent: string, args: string[], cwd: string, hooks: boolean, warn: (message: string) => void = (m) => process.stderr.write(`nerdr: ${m}\n`)) {
  const { launchPlan } = await import('./launch.js');
  const { loadConfig, formatProblem } = await import('../config.js');
  const { configDir, stateDir, packageRoot, nerdrBin } = await import('../paths.js');
  const loaded = loadConfig(configDir());
  for (const p of loaded.problems) warn(formatProblem(loaded.path, p));
  return launchPlan(agent, args, { stateDir: stateDir(), configDir: configDir(), packageRoot, nerdrBin, cwd, hooks, config: loaded.config });
}
