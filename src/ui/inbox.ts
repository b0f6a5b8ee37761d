// The dashboard's inbox view as plain data (tested without a screen): a row's cells, the
// selected row in full for the preview, and what a key does to a row. Every text that came from
// an agent or another host passes through `visible` here; the caller escapes blessed's tags
// where its box parses them.

import { sameText } from '../inbox/answer.js';
import { age } from '../looks.js';
import type { AnswerChoice, InboxRow } from '../protocol/index.js';
import { visible } from '../text.js';
import { fit } from './rows.js';

/** How long `z` snoozes a row. */
export const SNOOZE_MS = 15 * 60_000;

/** Stable across refreshes (the selection follows it): a fleet row's id is its host's. */
export function inboxKey(r: InboxRow): string {
  return `${r.host ?? ''}\0${r.id}`;
}

/** `HOST:NAME` for a fleet row, the name here. */
export function rowName(r: InboxRow): string {
  return visible(r.host ? `${r.host}:${r.name}` : r.name);
}

/** What the row waits for, in one line: the question and its options, the turn's last line, the message. */
export function rowSummary(r: InboxRow): string {
  const opts = r.kind === 'blocked' && r.dialog ? `  [${r.dialog.options.map((o) => `${o.n} ${o.label}`).join(' · ')}]` : '';
  const pos = r.kind === 'queued' && r.message ? `#${r.message.position} ` : '';
  return visible(`${pos}${r.summary}${opts}`);
}

export const INBOX_COLUMNS = { kind: 9, waiting: 9, name: 20 } as const;

/** The header (null) or a row's cells, never wider than `width`. */
export function inboxCells(r: InboxRow | null, now: number, width: number): string {
  const c = INBOX_COLUMNS;
  const rest = Math.max(4, width - c.kind - c.waiting - c.name);
  if (!r) return fit(fit('KIND', c.kind) + fit('WAITING', c.waiting) + fit('NAME', c.name) + fit('WHAT', rest), width);
  return fit(fit(r.kind, c.kind) + fit(age(now - r.since), c.waiting) + fit(rowName(r), c.name) + fit(rowSummary(r), rest), width);
}

/** The keys that answer this row, for the preview's last line. */
export function answerHelp(r: InboxRow): string {
  if (r.kind === 'queued') return 'x cancels this message · z snoozes it 15m · Z for how long';
  if (r.kind !== 'blocked') return 'enter goes to the agent · z snoozes 15m · Z for how long';
  if (!r.dialog || !r.answerable) return `nerdr does not answer this dialog: enter goes to ${rowName(r)} · z snoozes`;
  const n = r.dialog.options.filter((o) => o.n <= 9 && o.kind !== 'text').map((o) => o.n);
  const words = (['approve', 'always', 'deny'] as const).filter((k) => r.dialog!.options.some((o) => o.kind === k)).map((k) => `${KIND_KEY[k]} ${k}`);
  return [n.length ? `${n.length > 1 ? `${n[0]}–${n.at(-1)}` : n[0]} answer` : '', ...words, 'B all alike', 'z snooze'].filter(Boolean).join(' · ');
}

const KIND_KEY = { approve: 'a', always: 'A', deny: 'd' } as const;

/** The selected row in full: for the preview (a box without tags), every line made visible. */
export function inboxDetail(r: InboxRow, now: number): string {
  const where = `${rowName(r)} · ${visible(r.agent)} · ${r.host ? `on ${visible(r.host)} · ` : ''}${visible(r.window)}`;
  const out = [`${r.kind} for ${age(now - r.since)} · ${where}`, ''];
  if (r.dialog) {
    out.push(...visible(r.dialog.text, { lines: true }).split('\n'), '');
    for (const [i, o] of r.dialog.options.entries()) out.push(`${i === r.dialog.selected ? '❯' : ' '} ${o.n}. ${visible(o.label)}${o.kind === 'choice' ? '' : `  (${o.kind})`}`);
  } else if (r.lines.length) {
    out.push(...r.lines.map((l) => visible(l)));
  }
  if (r.message) {
    if (r.kind === 'queued') out.push(`message ${visible(r.message.id)}, #${r.message.position} in the queue:`, '');
    out.push(...visible(r.message.text, { lines: true }).split('\n'));
  } else if (!r.dialog && !r.lines.length) out.push(visible(r.summary));
  out.push('', answerHelp(r));
  return out.join('\n');
}

export type InboxAction =
  | { do: 'answer'; choice: AnswerChoice; label: string }
  | { do: 'bulk' }
  | { do: 'snooze'; ms: number }
  | { do: 'ask-snooze' }
  | { do: 'cancel' }
  /** The key means something here, but not for this row: why, for the status line. */
  | { do: 'refuse'; why: string };

/** What a key (blessed's `full` name) does to the selected row; null: not an inbox key. */
export function inboxAction(key: string, r: InboxRow | undefined): InboxAction | null {
  const choice = choiceOf(key);
  if (choice === null) {
    if (!['B', 'z', 'Z', 'x'].includes(key)) return null;
    if (!r) return { do: 'refuse', why: 'nothing waits for you' };
    if (key === 'z') return { do: 'snooze', ms: SNOOZE_MS };
    if (key === 'Z') return { do: 'ask-snooze' };
    if (key === 'x') return r.kind === 'queued' ? { do: 'cancel' } : { do: 'refuse', why: 'x cancels a queued message; to stop an agent, Tab to the agent list' };
    const why = notAnswerable(r);
    return why ? { do: 'refuse', why } : { do: 'bulk' };
  }
  if (!r) return { do: 'refuse', why: 'nothing waits for you' };
  const why = notAnswerable(r);
  if (why) return { do: 'refuse', why };
  const o = typeof choice === 'number' ? r.dialog!.options.find((x) => x.n === choice) : r.dialog!.options.find((x) => x.kind === choice);
  if (!o) return { do: 'refuse', why: typeof choice === 'number' ? `the dialog has no option ${choice}` : `the dialog has no ${choice} option` };
  if (o.kind === 'text') return { do: 'refuse', why: `option ${o.n} takes text: nerdr answer ${r.window} ${o.n} --prompt ${r.id} --text "…", or answer it in its window (enter)` };
  return { do: 'answer', choice, label: `${o.n}. ${visible(o.label)}` };
}

function choiceOf(key: string): AnswerChoice | null {
  if (/^[1-9]$/.test(key)) return Number(key);
  return key === 'a' ? 'approve' : key === 'A' ? 'always' : key === 'd' ? 'deny' : null;
}

/** Why this row cannot be answered with a key, or null when it can. */
function notAnswerable(r: InboxRow): string | null {
  if (r.kind !== 'blocked') return `${rowName(r)} waits for no answer (${r.kind})`;
  if (!r.dialog) return `nerdr cannot read this dialog's options: enter goes to ${rowName(r)}`;
  if (!r.answerable) return `nerdr does not answer ${visible(r.agent)}'s dialogs: enter goes to ${rowName(r)}`;
  return null;
}

/** Every answerable prompt showing exactly the same dialog as `r` (itself included), here and on the fleet's hosts. */
export function sameDialog(rows: InboxRow[], r: InboxRow): InboxRow[] {
  if (!r.dialog) return [];
  const same = sameText(r.dialog);
  return rows.filter((x) => x.kind === 'blocked' && x.answerable && x.dialog && sameText(x.dialog) === same);
}

/** The row that shows the same window's prompt now (after "the prompt changed"). */
export function samePlace(rows: InboxRow[], r: InboxRow): InboxRow | undefined {
  return rows.find((x) => x.kind === 'blocked' && x.window === r.window && x.host === r.host) ?? rows.find((x) => x.window === r.window && x.host === r.host);
}
