// `nerdr search TEXT`: the agents' own conversation logs (Claude, Codex), read in place.

import type { Command } from 'commander';
import { exitFor, NerdrError } from '../errors.js';
import { logScope } from '../extras/agents.js';
import { findLogs } from '../extras/logs.js';
import { searchLogs } from '../extras/search.js';
import { globalOpts } from './context.js';
import { printJson } from './print.js';
import { visible } from '../text.js';

export function register(program: Command): void {
  program
    .command('search')
    .description("search the agents' conversation logs (Claude, Codex) of this tmux session's agents, or --all")
    .argument('<text...>', 'what to look for (case-insensitive)')
    .option('--all', 'search every log, not only those of the agents in this tmux session')
    .option('--limit <n>', 'at most this many hits, newest first', '50')
    .option('--json', 'print JSON')
    .action(async (words: string[], opts: { all?: boolean; json?: boolean; limit: string }, cmd: Command) => {
      const query = words.join(' ');
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit <= 0) throw new NerdrError(`--limit must be a positive number, not "${opts.limit}"`, 'e.g. --limit 20', { code: 'invalid_option' });
      const g = globalOpts(cmd);
      const scope = await logScope({ name: g.L, socket: g.S }, !!opts.all);
      if (scope.note && !opts.json) process.stderr.write(`nerdr: ${scope.note}\n`);
      const hits = await searchLogs(findLogs(scope.folders), query, limit);
      if (opts.json) return printJson(hits);
      if (hits.length === 0) {
        process.stdout.write(`no match for "${visible(query)}"\n`);
        process.exitCode = exitFor('no_match');
        return;
      }
      for (const h of hits) {
        process.stdout.write(`${visible(h.file)}:${h.line}  ${visible(h.time ?? '-')}  ${visible(h.tool)} ${visible(h.role)}\n    ${visible(h.snippet)}\n`);
      }
    });
}
