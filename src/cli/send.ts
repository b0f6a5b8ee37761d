// `nerdr send`, `nerdr wait`: messages to an agent, and waiting for its state.

import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { call } from './context.js';
import { printJson } from './print.js';

const STATES = ['working', 'blocked', 'done', 'idle', 'unknown', 'exited'];

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function register(program: Command): void {
  program
    .command('send <target> [message...]')
    .description('queue a message for an agent; it is typed in when the agent is idle or done, never into a dialog (no message, or "-": read it from stdin)')
    .option('--json', 'print JSON')
    .action(async (target: string, words: string[], opts: { json?: boolean }, cmd: Command) => {
      let text = words.join(' ');
      if (words.length === 0 || (words.length === 1 && words[0] === '-')) {
        if (process.stdin.isTTY) throw new NerdrError('no message given', 'nerdr send <target> "text", or pipe it: echo text | nerdr send <target>');
        text = (await readStdin()).replace(/\n$/, '');
      }
      if (!text.trim()) throw new NerdrError('the message is empty');
      const r = await call<{ target: string; id: string; position: number; state: string; exited: boolean }>(cmd, 'nerdr.send', { target, message: text });
      if (opts.json) return printJson(r);
      const when = r.exited
        ? 'the agent has exited: it stays queued'
        : r.state === 'idle' || r.state === 'done'
          ? 'delivering now'
          : `it goes in when the agent is idle (now ${r.state})`;
      process.stdout.write(`queued for ${r.target} as #${r.position}; ${when}\n`);
    });

  program
    .command('wait <target>')
    .description('block until the agent reaches one of the states (default: done, idle, blocked); exit 124 on timeout, 3 if the agent exits or is replaced')
    .option('--until <states>', `comma-separated: ${STATES.join(', ')}`)
    .option('--timeout <seconds>', 'give up after this many seconds')
    .option('--json', 'print JSON')
    .action(async (target: string, opts: { until?: string; timeout?: string; json?: boolean }, cmd: Command) => {
      const until = opts.until?.split(',').map((s) => s.trim()).filter(Boolean);
      for (const s of until ?? []) {
        if (!STATES.includes(s)) throw new NerdrError(`unknown state "${s}"`, `states: ${STATES.join(', ')}`);
      }
      let timeoutMs = 0;
      if (opts.timeout !== undefined) {
        const n = Number(opts.timeout);
        if (!Number.isFinite(n) || n <= 0) throw new NerdrError(`--timeout takes a positive number of seconds, not "${opts.timeout}"`);
        timeoutMs = Math.round(n * 1000);
      }
      try {
        const r = await call<{ target: string; state: string }>(cmd, 'nerdr.wait', { target, until, timeoutMs }, { timeoutMs: 0 });
        if (opts.json) printJson(r);
        else process.stdout.write(`${r.target} ${r.state}\n`);
      } catch (err) {
        if (err instanceof NerdrError && /^timed out/.test(err.message)) throw new NerdrError(err.message, undefined, 124);
        if (err instanceof NerdrError && /exited|restarted|is gone/.test(err.message)) throw new NerdrError(err.message, undefined, 3);
        throw err;
      }
    });
}
