// `nerdr dash`: the dashboard, made for `tmux display-popup -E -w 80% -h 80% 'nerdr dash'`.

import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { runDash } from '../ui/run.js';
import { callerSecret, ensureSupervisor, hasNerdrWindows, supervisorAnswers, tmuxSocket } from './context.js';

export function register(program: Command): void {
  program
    .command('dash')
    .description('a live dashboard: first the inbox (every prompt, finished turn and queued message that waits for you, answered with one key: 1-9, a, A, d; B all alike; z snooze; x cancels a message), Tab the agents (lights, states, queues, a preview; enter goes to one, s sends, x stops)')
    .option('-c, --client <name>', 'the tmux client that enter switches (default: the one running the dashboard)')
    .option('--fleet', "also the fleet's hosts' agents, named HOST:NAME (docs/fleet.md)")
    .action(async (opts: { client?: string; fleet?: boolean }, cmd: Command) => {
      if (!process.stdout.isTTY || !process.stdin.isTTY) {
        throw new NerdrError('nerdr dash needs a terminal', "run it in a tmux pane or popup: tmux display-popup -E -w 80% -h 80% 'nerdr dash'; for scripts use `nerdr ls --json`");
      }
      const sock = await tmuxSocket(cmd);
      // a dashboard changes nothing: with no agent yet it waits for one instead of starting nerdr
      if (!(await supervisorAnswers(sock)) && !(await hasNerdrWindows(sock)) && !(await waitForAgents(sock))) return;
      const socketFile = await ensureSupervisor(sock);
      const caller = callerSecret();
      await runDash({ sock, socketFile, ...(opts.client ? { client: opts.client } : {}), ...(opts.fleet ? { fleet: true } : {}), ...(caller ? { caller } : {}) });
    });
}

/**
 * Until the first agent window or a supervisor appears: a line that says so, q/Esc/Ctrl-C quit.
 * Resolves true when there is something to show, false when the user quit.
 */
function waitForAgents(sock: string): Promise<boolean> {
  process.stdout.write('\x1b[2J\x1b[H nerdr: no agents on this tmux server yet.\r\n Start one in another window: nerdr new claude (or nerdr demo). q quits.\r\n');
  return new Promise((resolve) => {
    const stdin = process.stdin;
    stdin.setRawMode(true);
    stdin.resume();
    const done = (found: boolean): void => {
      clearInterval(timer);
      stdin.off('data', onKey);
      stdin.setRawMode(false);
      stdin.pause();
      resolve(found);
    };
    const onKey = (b: Buffer): void => {
      if (b.includes(0x71) || b.includes(0x1b) || b.includes(0x03)) done(false);
    };
    stdin.on('data', onKey);
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void Promise.all([supervisorAnswers(sock), hasNerdrWindows(sock)])
        .then(([up, windows]) => (up || windows) && done(true))
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, 500);
  });
}
