// `nerdr why` and `nerdr order`: an agent (or its user) writes down a reason or an instruction.
// One JSON line per call, appended under a lock to <data dir>/why.jsonl or order.jsonl; no
// supervisor is needed (it is asked who the agent is when it runs).

import path from 'node:path';
import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { whoAmI } from '../extras/agents.js';
import { appendJsonLine, dataDir } from '../extras/store.js';
import { globalOpts } from './context.js';

export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The line written: when, which agent, where, what. */
export interface NoteLine {
  time: string;
  agent: string | null;
  name: string | null;
  window: string | null;
  pane: string | null;
  conversation: string | null;
  cwd: string;
  text: string;
}

function noteCommand(program: Command, kind: 'why' | 'order', description: string): void {
  program
    .command(kind)
    .description(description)
    .argument('[text...]', 'the text; read from stdin when left out')
    .option('--json', 'print the line written')
    .action(async (words: string[], opts: { json?: boolean }, cmd: Command) => {
      const text = (words.length ? words.join(' ') : await readStdin()).trim();
      if (!text) throw new NerdrError(`nerdr ${kind} needs a text`, `nerdr ${kind} "what to remember" (or pipe it on stdin)`);
      const g = globalOpts(cmd);
      const me = await whoAmI({ name: g.L, socket: g.S });
      const line: NoteLine = { time: new Date().toISOString(), ...me, cwd: process.cwd(), text };
      const file = path.join(dataDir(), `${kind}.jsonl`);
      await appendJsonLine(file, line);
      if (opts.json) process.stdout.write(JSON.stringify(line) + '\n');
    });
}

export function register(program: Command): void {
  noteCommand(program, 'why', 'write down why (a reason, a decision) for the current agent, in <data dir>/why.jsonl');
  noteCommand(program, 'order', 'write down an instruction for the current agent, in <data dir>/order.jsonl');
}
