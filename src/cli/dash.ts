// `nerdr dash`: the dashboard, made for `tmux display-popup -E -w 80% -h 80% 'nerdr dash'`.

import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { runDash } from '../ui/run.js';
import { ensureSupervisor, tmuxSocket } from './context.js';

export function register(program: Command): void {
  program
    .command('dash')
    .description('a live dashboard of every agent: lights, states, queues and a preview; enter goes to one, s sends, x stops')
    .option('-c, --client <name>', 'the tmux client that enter switches (default: the one running the dashboard)')
    .action(async (opts: { client?: string }, cmd: Command) => {
      if (!process.stdout.isTTY || !process.stdin.isTTY) {
        throw new NerdrError('nerdr dash needs a terminal', "run it in a tmux pane or popup: tmux display-popup -E -w 80% -h 80% 'nerdr dash'; for scripts use `nerdr ls --json`");
      }
      const sock = await tmuxSocket(cmd);
      const socketFile = await ensureSupervisor(sock);
      await runDash({ sock, socketFile, ...(opts.client ? { client: opts.client } : {}) });
    });
}
