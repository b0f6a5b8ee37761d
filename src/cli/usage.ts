// `nerdr usage`: tokens spent, from the agents' own logs, per agent CLI and folder.

import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { logScope } from '../extras/agents.js';
import { findLogs } from '../extras/logs.js';
import { parseSince, shortCount, sumUsage } from '../extras/usage.js';
import { globalOpts } from './context.js';
import { printJson, table } from './print.js';

export function register(program: Command): void {
  program
    .command('usage')
    .description("sum the token usage in the agents' logs (Claude, Codex) per agent and folder")
    .option('--since <date>', 'only usage from then on: 2026-11-30, 2026-11-30T08:00, today, yesterday, or 7d / 12h / 30m ago')
    .option('--all', 'every log, not only those of the agents in this tmux session')
    .option('--json', 'print JSON')
    .action(async (opts: { since?: string; all?: boolean; json?: boolean }, cmd: Command) => {
      let since: Date | undefined;
      if (opts.since !== undefined) {
        since = parseSince(opts.since) ?? undefined;
        if (!since) throw new NerdrError(`cannot read the date "${opts.since}"`, 'give a date like 2026-11-30 or 2026-11-30T08:00, today or yesterday, or an age like 7d, 12h, 30m');
      }
      const g = globalOpts(cmd);
      const scope = await logScope({ name: g.L, socket: g.S }, !!opts.all);
      if (scope.note && !opts.json) process.stderr.write(`nerdr: ${scope.note}\n`);
      const rows = await sumUsage(findLogs(scope.folders), { ...(since ? { since } : {}), names: scope.names });
      if (opts.json) return printJson(rows);
      if (rows.length === 0) {
        process.stdout.write('no token usage found in the logs\n');
        return;
      }
      const body = rows.map((r) => [
        r.tool,
        r.agents.join(',') || '-',
        String(r.conversations),
        shortCount(r.input),
        shortCount(r.cacheWrite),
        shortCount(r.cacheRead),
        shortCount(r.output),
        shortCount(r.total),
        r.cwd,
      ]);
      process.stdout.write(table(['CLI', 'AGENTS', 'CONV', 'INPUT', 'CACHE-W', 'CACHE-R', 'OUTPUT', 'TOTAL', 'FOLDER'], body));
    });
}
