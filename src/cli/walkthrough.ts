// `nerdr walkthrough`: an agent writes one step of a guided tour of its change, for the person
// who reviews it (src/extras/walkthrough.ts); `--show` prints a window's steps in order.

import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { callerWindow, listAgents } from '../extras/agents.js';
import { appendJsonLine } from '../extras/store.js';
import { readWalkthrough, stepFile, walkthroughFile, type WalkthroughStep, type WalkthroughWindow } from '../extras/walkthrough.js';
import type { AgentRow } from '../protocol/index.js';
import { globalOpts } from './context.js';
import { printJson } from './print.js';
import { readStdin } from './why.js';
import { visible } from '../text.js';

interface Opts {
  file?: string;
  line?: string;
  show?: string | true;
  json?: boolean;
}

function lineNumber(text: string | undefined): number | null {
  if (text === undefined) return null;
  if (!/^[1-9][0-9]*$/.test(text)) throw new NerdrError(`--line ${JSON.stringify(text)} is not a line number`, 'give a whole number from 1: --line 42');
  return Number(text);
}

/** The window --show means: a name, window id or pane id among the agents, else the caller's own. */
async function showTarget(cmd: Command, target: string | true): Promise<{ ref: WalkthroughWindow; label: string }> {
  const g = globalOpts(cmd);
  const choice = { name: g.L, socket: g.S };
  if (target === true) {
    const { me } = await callerWindow(choice);
    if (!me.window) throw new NerdrError('--show: which window? this is not an agent window nerdr knows', 'name one: nerdr walkthrough --show NAME (nerdr ls lists them)');
    return { ref: { window: me.window, conversation: me.conversation }, label: me.name ?? me.window };
  }
  const rows: AgentRow[] = (await listAgents(choice))?.agents ?? [];
  const hits = rows.filter((a) => a.window === target || a.pane === target || a.id === target);
  const byName = rows.filter((a) => a.name === target);
  const row = hits.length === 1 ? hits[0] : byName.length === 1 ? byName[0] : undefined;
  if (row) return { ref: { window: row.window, conversation: row.conversationId }, label: row.name };
  if (byName.length > 1) throw new NerdrError(`"${target}" names ${byName.length} agents`, `use a window id: ${byName.map((a) => a.window).join(', ')}`);
  // a window that is gone (or no supervisor): its id still finds the steps written from it
  if (/^@\d+$/.test(target)) return { ref: { window: target }, label: target };
  const known = rows.map((a) => a.name).join(', ');
  throw new NerdrError(`no agent "${target}"`, known ? `agents: ${known}; or give a window id (@3)` : 'no supervisor answered: give a window id (@3)');
}

function show(steps: WalkthroughStep[], label: string): void {
  if (steps.length === 0) {
    process.stdout.write(`no walkthrough for ${visible(label)} yet (an agent adds steps with: nerdr walkthrough --file F --line N "what to look at")\n`);
    return;
  }
  steps.forEach((s, i) => {
    const where = s.file === null ? '' : `${visible(s.file)}${s.line === null ? '' : `:${s.line}`}  `;
    process.stdout.write(`${i + 1}. ${where}${visible(s.text, { lines: true }).split('\n').join('\n   ')}\n`);
  });
}

export function register(program: Command): void {
  program
    .command('walkthrough')
    .description('add a step to the guided tour of this agent\'s change (<data dir>/walkthrough.jsonl), or --show a window\'s tour')
    .argument('[text...]', 'what the reviewer should see here; read from stdin when left out')
    .option('--file <file>', 'the file the step is about (relative to here)')
    .option('--line <n>', 'the line in --file')
    .option('--show [target]', 'print the steps of a window (default: this one) in order')
    .option('--json', 'print JSON (the line written, or the steps)')
    .action(async (words: string[], opts: Opts, cmd: Command) => {
      if (opts.show !== undefined) {
        if (words.length || opts.file !== undefined || opts.line !== undefined) throw new NerdrError('--show prints steps; it takes no text, --file or --line', 'nerdr walkthrough --show [NAME] [--json]');
        const { ref, label } = await showTarget(cmd, opts.show);
        const steps = readWalkthrough(ref);
        if (opts.json) return printJson(steps);
        return show(steps, label);
      }
      const line = lineNumber(opts.line);
      if (line !== null && opts.file === undefined) throw new NerdrError('--line goes with --file', 'nerdr walkthrough --file src/app.ts --line 42 "what to look at"');
      const text = (words.length ? words.join(' ') : await readStdin()).trim();
      if (!text) throw new NerdrError('nerdr walkthrough needs a text', 'nerdr walkthrough --file F --line N "what the reviewer should see here" (or pipe it on stdin)');
      const g = globalOpts(cmd);
      const { me, row } = await callerWindow({ name: g.L, socket: g.S });
      const cwd = process.cwd();
      // the window's folder (its worktree): the review panel opens the file from there
      const folder = row?.worktree ?? row?.cwd ?? cwd;
      const step: WalkthroughStep = { time: new Date().toISOString(), ...me, cwd, text, file: opts.file === undefined ? null : stepFile(opts.file, cwd, folder), line };
      await appendJsonLine(walkthroughFile(), step);
      if (opts.json) process.stdout.write(JSON.stringify(step) + '\n');
    });
}
