// `nerdr read <target>`: the mirrored screen of an agent.

import type { Command } from 'commander';
import { call, noAgents } from './context.js';
import { printJson } from './print.js';
import { NerdrError } from '../errors.js';
import { remote } from './remote.js';

export function register(program: Command): void {
  program
    .command('read <target>')
    .description('print the mirrored screen of an agent (target: name, @window or %pane)')
    .option('--lines <n>', 'only the last N lines', (v) => {
      const n = Number.parseInt(v, 10);
      if (!Number.isInteger(n) || n <= 0) throw new NerdrError(`--lines takes a positive whole number, not "${v}"`, 'e.g. --lines 20', { code: 'invalid_option' });
      return n;
    })
    .option('--ansi', 'keep colours and styles')
    .option('--json', 'print JSON')
    .action(async (target: string, opts: { lines?: number; ansi?: boolean; json?: boolean }, cmd: Command) => {
      await remote('read', target);
      const r = await call<{ target: string; text: string }>(cmd, 'nerdr.read', { target, lines: opts.lines, ansi: !!opts.ansi }, { whenNone: () => noAgents(target) });
      if (opts.json) return printJson(r);
      process.stdout.write(r.text);
    });
}
