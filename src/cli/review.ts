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
    } else {
      const sock = await tmuxSocket(cmd);
      const session = await ownSession(sock);
      if (!session) throw new NerdrError('not inside tmux: there is no active window to review', 'name a target: nerdr review --once AGENT (or a folder: nerdr review --once ./path)');
      t = follow({ session, active: await activeWindows(sock), agents, selfPane: process.env.TMUX_PANE ?? null, previous: null });
      if (!t) throw new NerdrError(`tmux shows no window for session ${session}`, 'name a target: nerdr review --once AGENT (or a folder: nerdr review --once ./path)');
    }
  }
  const d = await gatherReview(t, dataDir());
  if (json) printJson(d);
  else process.stdout.write(reviewText(d));
}

export function register(program: Command): void {
  program
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
}
