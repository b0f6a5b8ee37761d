// `nerdr review`: the review panel, made for `tmux split-window -h -l 40% nerdr review` or a
// popup. It follows the window its session shows; `--once` prints the same data and exits.

import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { dataDir } from '../extras/store.js';
import { call, ensureSupervisor, hasNerdrWindows, supervisorAnswers, tmuxSocket } from './context.js';
import { printJson } from './print.js';
import type { Pin } from '../review/controller.js';
import type { AgentRow } from '../protocol/index.js';

/** A target that names a folder (it has a slash, or is . or .., and is a folder) rather than an agent. */
export function folderPin(target: string | undefined, cwd = process.cwd()): string | null {
  if (!target || !(target.includes('/') || target === '.' || target === '..')) return null;
  const abs = path.resolve(cwd, target);
  return existsSync(abs) && statSync(abs).isDirectory() ? abs : null;
}

async function once(cmd: Command, target: string | undefined, json: boolean): Promise<void> {
  const { gatherReview } = await import('../review/data.js');
  const { folderTarget } = await import('../review/controller.js');
  const { agentTarget, findAgent, follow } = await import('../review/follow.js');
  const { activeWindows, ownSession } = await import('../review/run.js');
  const { reviewText } = await import('../review/print.js');
  type Row = import('../review/follow.js').ReviewAgent;
  const folder = folderPin(target);
  let t;
  let known: Row[] = [];
  if (folder) t = folderTarget(folder);
  else {
    const { agents } = await call<{ agents: Row[] }>(cmd, 'nerdr.ls', {}, { whenNone: () => ({ agents: [] }) });
    if (target) {
      const a = findAgent(agents, target);
      if (!a) {
        const list = agents.map((x) => `${x.name} (${x.window})`).join(', ') || 'none running';
        throw new NerdrError(`no agent "${target}"; agents: ${list}`, 'name an agent by name, window id (@3) or pane id (%7), or a folder (./path)');
      }
      t = agentTarget(a);
      known = agents;
    } else {
      known = agents;
      const sock = await tmuxSocket(cmd);
      const session = await ownSession(sock);
      if (!session) throw new NerdrError('not inside tmux: there is no active window to review', 'name a target: nerdr review --once AGENT (or a folder: nerdr review --once ./path)');
      t = follow({ session, active: await activeWindows(sock), agents, selfPane: process.env.TMUX_PANE ?? null, previous: null });
      if (!t) throw new NerdrError(`tmux shows no window for session ${session}`, 'name a target: nerdr review --once AGENT (or a folder: nerdr review --once ./path)');
    }
  }
  const d = await gatherReview(t, dataDir(), undefined, (p) => known.find((a) => a.worktree === p)?.name ?? null);
  if (json) printJson(d);
  else process.stdout.write(reviewText(d));
}

/** `nerdr review comment`: the line's text from the window's folder (a regular file inside it, bounded), then one queued message. */
async function comment(cmd: Command, target: string, file: string, lineText: string, words: string[], json: boolean): Promise<void> {
  const line = Number(lineText);
  if (!Number.isInteger(line) || line < 1) throw new NerdrError(`--line ${lineText}: not a line number`, 'a whole number from 1', { code: 'invalid_option' });
  const text = words.join(' ').trim();
  if (!text) throw new NerdrError('no comment given', `nerdr review comment ${target} --file ${file} --line ${line} "what to change"`, { code: 'invalid_option' });
  const { callerSecret } = await import('./context.js');
  const { readShownFile } = await import('../review/read-file.js');
  const { commentMessage } = await import('../review/comment.js');
  const { findAgent } = await import('../review/follow.js');
  const rows = (await call<{ agents: AgentRow[] }>(cmd, 'nerdr.ls', {})).agents;
  // as `review --once AGENT` finds it: an id first, then a name that only one agent has
  const row = findAgent(rows, target) as AgentRow | null;
  if (!row) throw new NerdrError(`no agent "${target}"`, '`nerdr ls` lists the agents', { code: 'unknown_target' });
  const abs = path.resolve(row.cwd, file);
  const rel = path.relative(row.cwd, abs);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new NerdrError(`${file}: outside the window's folder (${row.cwd})`, "name a file inside the agent's folder, relative to it", { code: 'invalid_option' });
  const shown = await readShownFile(abs, [row.cwd]);
  const quoted = 'text' in shown ? (shown.text.split('\n')[line - 1] ?? null) : null;
  if ('refused' in shown && !/no such file/.test(shown.refused)) throw new NerdrError(`${file}: ${shown.refused}`, "name a file inside the agent's folder", { code: 'invalid_option' });
  const message = commentMessage({ file: rel || file, line, text: quoted, hunk: null }, text);
  const r = await call<{ target: string; id: string; position: number }>(cmd, 'nerdr.send', { target: row.window, message, caller: callerSecret() });
  if (json) return printJson({ ...r, message });
  process.stdout.write(`comment queued for ${row.name} (${r.target}) as #${r.position}: ${r.id}\n`);
}

export function register(program: Command): void {
  const review = program
    .command('review')
    .description("a review panel that follows the active window: its branch, changed files and diffs, the agent's walkthrough and why notes")
    .argument('[target]', 'an agent (name, @window, %pane) or a folder (./path) to review instead of following the active window')
    .option('--once', 'print the data once and exit')
    .option('--json', 'with --once: print JSON')
    .action(async (target: string | undefined, opts: { once?: boolean; json?: boolean }, cmd: Command) => {
      if (opts.once || opts.json) return once(cmd, target, opts.json === true);
      if (!process.stdout.isTTY || !process.stdin.isTTY) {
        throw new NerdrError('nerdr review needs a terminal', "run it in a tmux pane: tmux split-window -h -l 40% 'nerdr review'; for scripts use `nerdr review --once --json`");
      }
      const sock = await tmuxSocket(cmd);
      const folder = folderPin(target);
      let pin: Pin = folder ? { kind: 'folder', folder } : target ? { kind: 'agent', target } : null;
      let socketFile: string | null = null;
      let note: string | undefined;
      if (!folder) {
        // following needs the supervisor; with no agent on the server none is started
        if ((await supervisorAnswers(sock)) || (await hasNerdrWindows(sock))) socketFile = await ensureSupervisor(sock);
        else if (target) throw new NerdrError(`no agent "${target}": this tmux server has no nerdr windows`, 'start one: nerdr new <agent>, or name a folder: nerdr review ./path');
        else {
          pin = { kind: 'folder', folder: process.cwd() };
          note = 'no nerdr agents on this server: showing this folder (windows are followed once an agent runs)';
        }
      }
      const { runReview } = await import('../review/run.js');
      await runReview({ sock, socketFile, pin, dataDir: dataDir(), ...(note ? { note } : {}) });
       });

  review
    .command('comment <target> <text...>')
    .description("queue a comment on a line for the window's agent: one message \"path:line: comment\" with the line it is about")
    .requiredOption('--file <path>', "the file, relative to the agent's folder")
    .requiredOption('--line <n>', 'the line of the file')
    .option('--json', 'print JSON')
    .action(async (target: string, words: string[], opts: { file: string; line: string; json?: boolean }, cmd: Command) => {
      // `review` has a --json of its own, which takes the flag wherever it stands
      await comment(cmd, target, opts.file, opts.line, words, opts.json === true || cmd.parent?.opts<{ json?: boolean }>().json === true);
    });
}
