// The inbox's rows from the windows as the supervisor sees them: a blocked agent (its dialog as
// read from its screen), a finished turn not yet seen (its last lines), a stalled queue and each
// queued message. Pure: the supervisor hands in each window's row, screen and queue.

import { createHash } from 'node:crypto';
import type { AgentRow, Dialog, InboxRow } from '../protocol/index.js';
import { visible } from '../text.js';
import type { QueuedMessage } from '../store/queue.js';
import { readDialog, type DialogSpec } from './dialog.js';
import { promptId } from './answer.js';

/** Lines of a finished turn's screen shown in its row. */
export const DONE_LINES = 6;

export interface InboxWindow {
  row: AgentRow;
  /** The window's screen as text and with colours; null before it has one. */
  screen(): { text: string; ansi: string } | null;
  /** How its agent's dialogs are read and answered; null: read generically, not answered. */
  dialogs: DialogSpec | null;
  queue: { messages: readonly QueuedMessage[]; stalledAt: number | null };
}

/** A blocked window's prompt: its dialog (null when none can be read), its id, its screen's last lines. */
export function promptOf(w: Pick<InboxWindow, 'row' | 'screen' | 'dialogs'>): { id: string; dialog: Dialog | null; lines: string[] } {
  const s = w.screen();
  const dialog = s ? readDialog(s.text, w.dialogs, s.ansi) : null;
  const lines = s ? lastLines(s.text, DONE_LINES) : [];
  return { id: promptId(w.row.window, w.row.stateSince, dialog, lines.join('\n')), dialog, lines };
}

export function inboxRows(windows: readonly InboxWindow[], snoozed: (id: string) => boolean): InboxRow[] {
  const rows: InboxRow[] = [];
  for (const w of windows) {
    const r = w.row;
    const base = { window: r.window, name: r.name, agent: r.agent, session: r.session, host: null };
    if (r.state === 'blocked') {
      const p = promptOf(w);
      const question = p.dialog ? (p.dialog.text.split('\n').at(-1) ?? '') : (p.lines.at(-1) ?? '');
      rows.push({
        ...base,
        id: p.id,
        kind: 'blocked',
        since: r.stateSince,
        summary: question || 'waits for you',
        dialog: p.dialog,
        answerable: p.dialog !== null && w.dialogs !== null,
        lines: p.dialog ? [] : p.lines,
        message: null,
      });
    } else if (r.state === 'done' && r.seen === false) {
      const s = w.screen();
      const lines = s ? lastLines(aboveInput(s.text), DONE_LINES) : [];
      const said = [...lines].reverse().find((l) => /^\s*[●•✦◆⏺]/u.test(l)) ?? lines.at(-1);
      rows.push({ ...base, id: shortId('d', r.window, r.stateSince), kind: 'done', since: r.stateSince, summary: said?.trim() ?? 'finished its turn', dialog: null, answerable: false, lines, message: null });
    }
    if (r.state === 'limited') {
      const l = r.limit ?? null;
      rows.push({
        ...base,
        id: shortId('l', r.window, r.stateSince),
        kind: 'limited',
        since: r.stateSince,
        summary: visible(l?.words ?? 'at its usage limit').slice(0, 300),
        dialog: null,
        answerable: false,
        lines: [l?.resetAt != null ? `resets at ${new Date(l.resetAt).toISOString()}` : 'reset time unknown'],
        message: null,
      });
    }
    const q = w.queue;
    if (q.stalledAt !== null && q.messages.length > 0) {
      rows.push({
        ...base,
        id: shortId('s', r.window, q.stalledAt),
        kind: 'stalled',
        since: q.stalledAt,
        summary: `${q.messages.length} queued message${q.messages.length === 1 ? '' : 's'} wait: the last one got no response; visit the window (nerdr focus ${r.name}) to go on`,
        dialog: null,
        answerable: false,
        lines: [],
        message: null,
      });
    }
    q.messages.forEach((m, i) => {
      if (m.typingAt !== null) return;
      rows.push({
        ...base,
        id: m.id,
        kind: 'queued',
        since: m.queuedAt,
        summary: visible(m.text.split('\n')[0] ?? '').slice(0, 200),
        dialog: null,
        answerable: false,
        lines: [],
        message: { id: m.id, text: m.text, position: i + 1, queuedAt: m.queuedAt },
      });
    });
  }
  return rows.filter((x) => !snoozed(x.id)).sort((a, b) => a.since - b.since || a.window.localeCompare(b.window));
}

function shortId(kind: string, window: string, at: number): string {
  return kind + createHash('sha256').update(`${window}\0${at}`).digest('hex').slice(0, 9);
}

/** Lines a screen's input box starts within, from the bottom. */
const INPUT_BOX_LINES = 8;

/**
 * The screen above the agent's input box: cut at the topmost rule or box edge among its last
 * lines (Claude Code's ─── ❯ ───, opencode's box), so a finished turn shows what it said, not the
 * empty prompt.
 */
export function aboveInput(text: string): string {
  const lines = text.replace(/\n+$/u, '').split('\n');
  const from = Math.max(0, lines.length - INPUT_BOX_LINES);
  for (let i = from; i < lines.length; i++) {
    if (/^\s*[─━═╭╰┌└]{3}/u.test(lines[i]!)) return lines.slice(0, i).join('\n');
  }
  return text;
}

/** The last `n` lines of a screen that hold something, control characters made visible. */
export function lastLines(text: string, n: number): string[] {
  return text
    .split('\n')
    .map((l) => l.replace(/\s+$/u, ''))
    .filter((l) => l.trim() !== '')
    .slice(-n)
    .map((l) => visible(l));
}
