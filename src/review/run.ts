// Runs the review panel: the agent list and each session's active window from the supervisor's
// nerdr.subscribe stream (no polling), git for the data, a one-shot `tmux new-window` for the
// editor. It exits when the user quits or the screen goes.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import blessed from 'blessed';
import { NerdrError } from '../errors.js';
import { request, subscribe, SocketRequestError, type Subscription } from '../supervisor/socket/index.js';
import { serverFiles } from '../paths.js';
import { callerSecret, socketError } from '../cli/context.js';
import { visible } from '../text.js';
import { commentMessage } from './comment.js';
import { tmux } from '../tmux/server.js';
import { argvSafe, escapeFormat } from '../tmux/quote.js';
import { HIDDEN_SESSION } from '../supervisor/discover.js';
import { ACTIVE_FORMAT, parseActive, type ActiveWindow } from '../supervisor/active.js';
import { ReviewController, type Pin } from './controller.js';
import { fileDiff } from './git.js';
import { ReviewPanel, type ReviewActions } from './panel.js';
import { stepRows } from './show.js';
import type { ReviewAgent } from './follow.js';

export interface RunReviewOptions {
  /** The tmux server's socket. */
  sock: string;
  /** The supervisor's socket; null: none runs, the panel shows its pinned folder only. */
  socketFile: string | null;
  pin: Pin;
  dataDir: string;
  /** Said in the footer at the start (e.g. why the panel does not follow). */
  note?: string;
}

/**
 * The user session the caller runs in: of the sessions its pane's window is linked into (agent
 * windows are also in nerdr's hidden one), an attached one first; for a popup (no pane), the
 * one $TMUX names. Null outside tmux.
 */
export async function ownSession(sock: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const pane = env.TMUX_PANE;
  if (pane) {
    const r = await tmux(sock, ['list-panes', '-a', '-F', '#{pane_id}\t#{session_id}\t#{session_attached}\t#{session_name}']);
    const rows = r.stdout.split('\n').map((l) => l.split('\t')).filter((f) => f[0] === pane && f[3] !== HIDDEN_SESSION);
    const best = rows.find((f) => f[2] !== '0') ?? rows[0];
    if (best?.[1]) return best[1];
  }
  if (!env.TMUX) return null;
  const r = await tmux(sock, ['display', '-p', '#{session_id}']);
  return r.code === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

/** Whether this process is the pane's program or a child of it (a `sh -c` between them). */
async function runsIn(sock: string, pane: string): Promise<boolean> {
  const r = await tmux(sock, ['display', '-p', '-t', pane, '#{pane_pid}']);
  const panePid = Number(r.stdout.trim());
  if (r.code !== 0 || !panePid) return false;
  let pid = process.pid;
  for (let i = 0; i < 4 && pid > 1; i++) {
    if (pid === panePid) return true;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return pid === process.pid ? process.ppid === panePid : false;
    }
  }
  return false;
}

/** Each session's active window, asked of tmux once (what the supervisor streams while followed). */
export async function activeWindows(sock: string): Promise<ActiveWindow[]> {
  const r = await tmux(sock, ['list-sessions', '-F', ACTIVE_FORMAT]);
  return r.code === 0 ? parseActive(r.stdout) : [];
}

/** Editors that take `+LINE` before the file. */
const PLUS_LINE = new Set(['vi', 'vim', 'nvim', 'view', 'nano', 'emacs', 'emacsclient', 'micro', 'kak', 'joe', 'mg', 'ne', 'jed']);

/**
 * The argv of `$VISUAL`/`$EDITOR` for a file: the variable is split on blanks (its program and
 * options), never given to a shell; the file and line are arguments of their own.
 */
export function editorArgv(env: NodeJS.ProcessEnv, file: string, line: number | null): string[] {
  const words = (env.VISUAL || env.EDITOR || 'vi').trim().split(/\s+/).filter(Boolean);
  const prog = path.basename(words[0] ?? 'vi');
  return [...words, ...(line && PLUS_LINE.has(prog) ? [`+${line}`] : []), file];
}

/** tmux new-window arguments that run the editor as argv (several arguments: no shell), in the background. */
export function editorWindowArgs(session: string | null, folder: string, argv: readonly string[]): string[] {
  const name = path.basename(argv[argv.length - 1] ?? 'edit');
  return ['new-window', '-d', '-P', '-F', '#{window_id}', ...(session ? ['-t', `${session}:`] : []), '-c', argvSafe(escapeFormat(folder)), '-n', argvSafe(escapeFormat(name)), '--', ...argv.map(argvSafe)];
}

function actions(sock: string, session: string | null, refresh: () => void, opened: (window: string) => void): ReviewActions {
  return {
    fileDiff: async (d, f) => (d.repo ? fileDiff(d.repo, f, d.base) : { text: '', more: 0 }),
    stepRows: (d, step) => stepRows(d, step),
    edit: async (d, file, line) => {
      const r = await tmux(sock, editorWindowArgs(session, d.repo ?? d.folder, editorArgv(process.env, file, line)));
      if (r.code !== 0) throw new NerdrError(`cannot open a window for the editor: ${r.stderr.trim()}`, undefined, { code: 'tmux_command' });
      // made in the background, known as the panel's own, then shown: the switch it causes does
      // not take the panel off what it shows
      const win = r.stdout.trim();
      opened(win);
      await tmux(sock, ['select-window', '-t', session ? `${session}:${win}` : win]);
    },
    refresh,
    comment: async (d, place, text) => {
      const r = (await request(serverFiles(sock).socket, 'nerdr.send', { target: d.window, message: commentMessage(place, text), caller: callerSecret() }, { timeoutMs: 10_000 }).catch((err: unknown) => {
        throw err instanceof SocketRequestError ? socketError(err) : err;
      })) as { id: string; position: number };
      return `comment on ${visible(place.file)}:${place.line} queued for ${visible(d.agent?.name ?? d.windowName)} (#${r.position}, ${r.id})`;
    },
  };
}

export async function runReview(opts: RunReviewOptions): Promise<void> {
  const session = await ownSession(opts.sock);
  // split into an agent's window, the panel's pane inherits its remain-on-exit: q must close it
  // (only a pane the panel runs in: a popup's TMUX_PANE may be the agent's own)
  const pane = process.env.TMUX_PANE;
  if (pane && (await runsIn(opts.sock, pane))) await tmux(opts.sock, ['set-option', '-p', '-t', pane, 'remain-on-exit', 'off']);
  let sub: Subscription | null = null;
  if (opts.socketFile && opts.pin?.kind !== 'folder') {
    sub = await subscribe(opts.socketFile, 'nerdr.subscribe', { active: true }, { timeoutMs: 5000 }).catch((err: unknown) => {
      throw err instanceof SocketRequestError ? new NerdrError(`cannot follow the windows: ${err.message}`, 'check the supervisor with `nerdr doctor`', { code: err.code === 'timeout' ? 'no_answer' : err.code }) : err;
    });
  }
  const screen = blessed.screen({ smartCSR: true, fullUnicode: true, forceUnicode: true, title: 'nerdr review', warnings: false } as blessed.Widgets.IScreenOptions);
  // box lines as UTF-8, not the terminal's line-drawing set (tmux keeps those cells as letters)
  (screen as unknown as { tput: { brokenACS: boolean } }).tput.brokenACS = true;
  let controller: ReviewController | null = null;
  const panel = new ReviewPanel({
    screen,
    actions: actions(
      opts.sock,
      session,
      () => controller?.refresh(),
      (w) => controller?.ownWindows.add(w),
    ),
  });
  controller = new ReviewController({
    dataDir: opts.dataDir,
    session,
    selfPane: process.env.TMUX_PANE ?? null,
    pin: opts.pin,
    show: (d) => panel.show(d),
    say: (t) => panel.say(t),
  });
  if (opts.note) panel.say(opts.note);
  if (sub) {
    const first = sub.result as { agents?: ReviewAgent[]; active?: ActiveWindow[] };
    controller.setAgents(first.agents ?? []);
    controller.setActive(first.active ?? []);
    const c = controller;
    const s = sub;
    void (async () => {
      for await (const msg of s.events) {
        const m = msg as { event?: string; data?: { agents?: ReviewAgent[]; active?: ActiveWindow[] } };
        if (m.event === 'agents' && Array.isArray(m.data?.agents)) c.setAgents(m.data.agents);
        else if (m.event === 'active' && Array.isArray(m.data?.active)) c.setActive(m.data.active);
      }
      panel.say('the supervisor went away: the panel no longer follows windows (q quits)');
    })();
  }
  try {
    await panel.done;
  } finally {
    sub?.close();
    await controller.dispose();
    screen.destroy();
  }
}
