// `nerdr tmux install|uninstall`: the light in the user's status formats, with a backup.

import { rmSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ensureStateDir, lightsOffFile } from '../paths.js';
import { tmuxOk, argvSafeAll } from '../tmux/server.js';
import { installLights as installWith, uninstallLights as uninstallWith, type RunArgv } from '../tmux/status.js';
import { tmuxSocket } from './context.js';

/** One-shot tmux with argv (a value ending in `;` is escaped for tmux's argv parser). */
function oneShot(sock: string): RunArgv {
  return (args) => tmuxOk(sock, argvSafeAll(args));
}

export function installLights(sock: string): Promise<string[]> {
  return installWith(oneShot(sock));
}

export function uninstallLights(sock: string): Promise<string[]> {
  return uninstallWith(oneShot(sock));
}

export function register(program: Command): void {
  const t = program.command('tmux').description("add or remove nerdr's lights in your tmux status line");
  t.command('install')
    .description('put the light in front of window-status-format, window-status-current-format and status-right (idempotent, with a backup)')
    .action(async (_o: unknown, cmd: Command) => {
      const changed = await installLights(await tmuxSocket(cmd));
      rmSync(lightsOffFile(), { force: true });
      process.stdout.write(changed.length ? `lights added to ${changed.join(', ')}\n` : 'lights already installed\n');
    });
  t.command('uninstall')
    .description("take nerdr's prefix out of those options again, keeping your own text")
    .action(async (_o: unknown, cmd: Command) => {
      const sock = await tmuxSocket(cmd);
      // remembered, so that a supervisor (re)start does not put them back; first, so that a
      // running supervisor, which puts back a prefix a config reload took out, sees it is wanted out
      ensureStateDir();
      writeFileSync(lightsOffFile(), `${new Date().toISOString()}\n`, { mode: 0o600 });
      const changed = await uninstallLights(sock);
      process.stdout.write(changed.length ? `lights removed from ${changed.join(', ')}\n` : 'no lights were installed\n');
      process.stdout.write(`nerdr will not put them back (remembered in ${lightsOffFile()}); to have them again: nerdr tmux install\n`);
    });
}
