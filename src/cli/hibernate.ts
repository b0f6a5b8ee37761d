// `nerdr hibernate TARGET` and `nerdr wake TARGET` (docs/lifecycle.md): an idle agent stopped to
// wake later in its conversation, in the same window, and woken.

import type { Command } from 'commander';
import { call, callerSecret } from './context.js';
import { printJson } from './print.js';
import { remote } from './remote.js';

/** A hibernation waits up to 5 s for the agent's own exit, a wake up to 5 s to see the resume hold. */
const TIMEOUT_MS = 30_000;

function megabytes(kb: number | null): string {
  return kb === null ? 'an unknown amount of memory' : `${(kb / 1024).toFixed(0)} MB`;
}

export function register(program: Command): void {
  program
    .command('hibernate <target>')
    .description('stop an idle agent (or one done and seen) to wake it later in its conversation; its window keeps its last screen')
    .option('--json', 'print JSON')
    .action(async (target: string, opts: { json?: boolean }, cmd: Command) => {
      await remote('hibernate', target);
      const r = await call<{ target: string; name: string; conversationId: string; rssKb: number | null }>(cmd, 'nerdr.hibernate', { target, caller: callerSecret() }, { timeoutMs: TIMEOUT_MS });
      if (opts.json) return printJson(r);
      process.stdout.write(`hibernated ${r.name} (${r.target}) in conversation ${r.conversationId}: ${megabytes(r.rssKb)} freed; wake it with nerdr wake ${r.target}, or send it a message\n`);
    });

  program
    .command('wake <target>')
    .description('wake a hibernated agent: it resumes its conversation in its window')
    .option('--json', 'print JSON')
    .action(async (target: string, opts: { json?: boolean }, cmd: Command) => {
      await remote('wake', target);
      const r = await call<{ target: string; name: string; conversationId: string; resumeFailed: string | null }>(cmd, 'nerdr.wake', { target, callerEnv: process.env, caller: callerSecret() }, { timeoutMs: TIMEOUT_MS });
      if (opts.json) return printJson(r);
      if (r.resumeFailed) {
        process.stdout.write(`woke ${r.name} (${r.target}), but its conversation could not be resumed (${r.resumeFailed}): it started a new one\n`);
        process.exitCode = 1;
      } else process.stdout.write(`woke ${r.name} (${r.target}) in conversation ${r.conversationId}\n`);
    });
}
