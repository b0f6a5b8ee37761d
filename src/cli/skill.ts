// `nerdr skill`: the nerdr skill (hooks/skills/nerdr/SKILL.md), for an agent nerdr does not hand
// it to itself: paste it into that agent's instructions, or point the agent at the file.

import type { Command } from 'commander';
import { packageRoot } from '../paths.js';
import { skillPath, skillText } from '../integrations/skill.js';

export function register(program: Command): void {
  program
    .command('skill')
    .description("print the nerdr skill: how an agent starts and drives helper agents (for agents nerdr does not hand it to)")
    .option('--path', 'print where the file is instead')
    .action((opts: { path?: boolean }) => {
      process.stdout.write(opts.path ? skillPath(packageRoot) + '\n' : skillText(packageRoot));
    });
}
