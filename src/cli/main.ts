// The `nerdr` command: global options, one file per command, errors printed in one place.

import { Command, CommanderError } from 'commander';
import { NerdrError } from '../errors.js';
import { register as registerNew } from './new.js';
import { register as registerLs } from './ls.js';
import { register as registerRead } from './read.js';
import { register as registerSupervise } from './supervise.js';
import { register as registerDoctor } from './doctor.js';
import { register as registerTmux } from './tmux.js';
import { register as registerDemo } from './demo.js';
import { register as registerDetect } from './detect.js';
import { register as registerManifests } from './manifests.js';
import { register as registerPane } from './pane.js';
import { register as registerExplain } from './explain.js';
import { register as registerSend } from './send.js';
import { register as registerNext } from './next.js';

export function buildProgram(): Command {
  const program = new Command('nerdr');
  program
    .description('which of your coding agents needs you: lights for agents running in tmux')
    .version('0.1.0')
    .option('-L <name>', 'use the tmux server with this socket name (like tmux -L)')
    .option('-S <path>', 'use the tmux server at this socket path (like tmux -S)')
    .showHelpAfterError()
    .exitOverride();
  for (const register of [registerNew, registerLs, registerRead, registerSupervise, registerDoctor, registerTmux, registerDemo, registerDetect, registerManifests, registerPane, registerExplain, registerSend, registerNext]) {
    register(program);
  }
  program.commands.forEach(function exit(c: Command): void {
    c.exitOverride();
    c.commands.forEach(exit);
  });
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    if (err instanceof NerdrError) {
      process.stderr.write(err.render() + '\n');
      process.exitCode = err.exitCode;
      return;
    }
    process.stderr.write(`nerdr: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 1;
  }
}
