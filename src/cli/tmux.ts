// `nerdr tmux install|uninstall`: the light in the user's status formats, with a backup.

import type { Command } from 'commander';
import { tmux, tmuxOk, argvSafeAll } from '../tmux/server.js';
import { STATUS_OPTIONS, withPrefix, withoutPrefix } from '../tmux/status.js';
import { tmuxSocket } from './context.js';

export async function installLights(sock: string): Promise<string[]> {
  const changed: string[] = [];
  for (const { option, prefix, marker } of STATUS_OPTIONS) {
    const current = (await tmuxOk(sock, ['show-options', '-gv', option])).replace(/\n$/, '');
    const next = withPrefix(current, prefix, marker);
    if (next === null) continue;
    await tmuxOk(sock, argvSafeAll(['set-option', '-g', `@nerdr_saved_${option}`, current]));
    await tmuxOk(sock, argvSafeAll(['set-option', '-g', option, next]));
    changed.push(option);
  }
  return changed;
}

export async function uninstallLights(sock: string): Promise<string[]> {
  const changed: string[] = [];
  for (const { option, prefix } of STATUS_OPTIONS) {
    const current = (await tmuxOk(sock, ['show-options', '-gv', option])).replace(/\n$/, '');
    const next = withoutPrefix(current, prefix);
    if (next === null) continue;
    await tmuxOk(sock, argvSafeAll(['set-option', '-g', option, next]));
    await tmux(sock, ['set-option', '-gu', `@nerdr_saved_${option}`]);
    changed.push(option);
  }
  return changed;
}

export function register(program: Command): void {
  const t = program.command('tmux').description("add or remove nerdr's lights in your tmux status line");
  t.command('install')
    .description('put the light in front of window-status-format, window-status-current-format and status-right (idempotent, with a backup)')
    .action(async (_o: unknown, cmd: Command) => {
      const changed = await installLights(await tmuxSocket(cmd));
      process.stdout.write(changed.length ? `lights added to ${changed.join(', ')}\n` : 'lights already installed\n');
    });
  t.command('uninstall')
    .description("take nerdr's prefix out of those options again, keeping your own text")
    .action(async (_o: unknown, cmd: Command) => {
      const changed = await uninstallLights(await tmuxSocket(cmd));
      process.stdout.write(changed.length ? `lights removed from ${changed.join(', ')}\n` : 'no lights were installed\n');
    });
}
