// What `nerdr send --wait` and `nerdr send --status` print of a message's receipt (the
// supervisor keeps it: src/supervisor/messages.ts): its steps in order, and how it ended. Pure.

import type { Receipt } from '../store/queue.js';
import { exitFor } from '../errors.js';
import { clockTime } from './print.js';

export type ReceiptStep =
  | { step: 'queued'; at: number }
  | { step: 'pasted'; at: number }
  | { step: 'started'; at: number; state: string | null }
  | { step: 'state'; at: number; state: string }
  | { step: 'stalled'; at: number }
  | { step: 'closed'; at: number; why: string };

/** Every step of the receipt, oldest first. */
export function receiptSteps(r: Receipt): ReceiptStep[] {
  const out: ReceiptStep[] = [{ step: 'queued', at: r.queuedAt }];
  if (r.pastedAt !== null) out.push({ step: 'pasted', at: r.pastedAt });
  if (r.startedAt !== null) out.push({ step: 'started', at: r.startedAt, state: r.states[0]?.at === r.startedAt ? r.states[0].state : null });
  for (const [i, s] of r.states.entries()) if (!(i === 0 && s.at === r.startedAt)) out.push({ step: 'state', at: s.at, state: s.state });
  if (r.stalledAt !== null) out.push({ step: 'stalled', at: r.stalledAt });
  if (r.closedAt !== null && r.closed !== null) out.push({ step: 'closed', at: r.closedAt, why: r.closed });
  return out.sort((a, b) => a.at - b.at);
}

/** Exit statuses of `nerdr send --wait`. */
export const SEND_EXIT = { reached: 0, gone: exitFor('agent_gone'), stalled: exitFor('stalled'), timeout: exitFor('timeout') } as const;

/**
 * How the message's turn ended, once it has: the first of `until` after the turn started
 * (exit 0); the queue stalled with no response (4); the agent gone, the next message typed in, or
 * it may have been typed in (an older nerdr stopped while typing it), before any of them (3). Null while it may still come.
 */
export function receiptEnd(r: Receipt, until: string[]): { exit: number; state: string | null; why: string } | null {
  if (r.startedAt !== null) {
    const hit = r.states.find((s) => until.includes(s.state));
    if (hit) return { exit: SEND_EXIT.reached, state: hit.state, why: `the turn it started ended ${hit.state}` };
  }
  if (r.stalledAt !== null && r.startedAt === null) {
    return { exit: SEND_EXIT.stalled, state: null, why: 'no response within 5 s of typing it in: the queue is paused until you visit the window' };
  }
  // it may have been typed in, while the supervisor stopped: the receipt says what to do
  if (r.closedAt !== null && r.retryText != null) return { exit: SEND_EXIT.gone, state: null, why: r.closed ?? 'it may have been typed in' };
  if (r.closedAt !== null) {
    return { exit: SEND_EXIT.gone, state: null, why: `${r.closed ?? 'nothing more is recorded'} before the agent was ${until.join(' or ')}` };
  }
  return null;
}


/** One step for people. */
export function stepText(s: ReceiptStep): string {
  switch (s.step) {
    case 'queued':
      return `${clockTime(s.at)} queued`;
    case 'pasted':
      return `${clockTime(s.at)} typed in`;
    case 'started':
      return `${clockTime(s.at)} the turn started${s.state ? ` (${s.state})` : ''}`;
    case 'state':
      return `${clockTime(s.at)} ${s.state}`;
    case 'stalled':
      return `${clockTime(s.at)} no response: the queue is paused until the window is visited`;
    case 'closed':
      return `${clockTime(s.at)} no more steps: ${s.why}`;
  }
}
