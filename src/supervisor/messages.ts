// Automatic messages: a queue per agent, delivered one at a time when the agent is idle or
// done and not in copy mode — never while it is blocked, since text typed into a permission
// dialog answers it. The message is pasted (bracketed when the agent asked for it), Enter
// follows as a separate key after a per-agent delay, and delivery counts as confirmed when
// the agent starts working (its prompt-submit hook or its screen). No response within 5 s:
// the queue stalls (light ✉n⏸) until the user visits the window.
//
// A message is typed in at most once. Before the paste it is marked `typingAt` in the queue
// file (on disk before tmux gets the paste); the mark goes with the message once its turn is
// confirmed or it stalls. The paste's command line first sets the pane's @nerdr_typed to the
// message's id: tmux runs a control-mode line whole or not at all, so that option says whether
// the paste ran. A mark found when the queue is loaded (the supervisor stopped while typing it):
// when tmux's answer to the paste was recorded, or the pane's @nerdr_typed names the message,
// it is in and never typed again, and its turn is waited for as before the restart; when neither
// (the line never reached tmux) it is typed in as if nothing happened. A paste whose answer
// never came to a live supervisor (its control client closed) is settled the same way, by the
// pane's @nerdr_typed, read on the line that checks the pane before anything more is typed
// there. A mark of older nerdr (its paste set nothing in tmux) may have been typed: it leaves
// the queue, its receipt says so and keeps the text, and only `nerdr send --retry ID` queues it
// again.

import { randomBytes } from 'node:crypto';
import { command } from '../tmux/quote.js';
import type { Reply } from '../tmux/client.js';
import { QueueWriteError, RECEIPT_STATES_KEPT, type QueueStore, type QueuedMessage, type AgentQueue, type Receipt } from '../store/queue.js';
import { RpcError } from './socket/errors.js';
import type { WatchedAgent } from './agent.js';
import type { Logger } from './log.js';
import type { Clock, Timer } from './clock.js';
import { DEFAULT_ENTER_DELAY_MS, integrationFor } from '../integrations/index.js';
import { TYPED_OPTION } from './discover.js';

export const CONFIRM_MS = 5000;
/** Largest message accepted (the issue's 100 KB case fits). */
export const MAX_MESSAGE_BYTES = 256 * 1024;

interface InFlight {
  message: QueuedMessage;
  timer: Timer | null;
  /** Set for a message the supervisor before pasted (awaitTurn): when tmux took it. */
  pastedAt?: number | null;
}

export interface MessengerDeps {
  sendLine(commands: string[], done: (replies: Reply[]) => void): void;
  log: Logger;
  store: QueueStore;
  clock: Clock;
  /** The queue's count or stall changed: repaint the light. */
  changed(a: WatchedAgent): void;
  /** A message's receipt moved on (nerdr send --wait follows this). */
  receipt?(a: WatchedAgent, r: Receipt): void;
}

export class Messenger {
  private readonly queues = new Map<string, AgentQueue>();
  private readonly inFlight = new Map<string, InFlight>();
  /** Windows whose queue waits for a message about to go first (hold). */
  private readonly holds = new Map<string, number>();
  /** A queue file that could not be used when it was loaded: told to the next sender. */
  private readonly notices = new Map<string, string>();
  /** Per agent: the receipt of the message typed in last, whose turn is being followed. */
  private readonly active = new Map<string, Receipt>();

  constructor(private readonly deps: MessengerDeps) {}

  queue(a: WatchedAgent): AgentQueue {
    let q = this.queues.get(a.id);
    if (!q) {
      const loaded = this.deps.store.load(a.id);
      q = loaded.queue;
      this.queues.set(a.id, q);
      if (loaded.problem !== null) {
        this.deps.log('warn', `${a.name}: ${loaded.problem}`);
        this.notices.set(a.id, loaded.problem);
      }
      // the supervisor before stopped while typing it. Pasted (tmux's answer was recorded, or
      // the pane's @nerdr_typed names it: tmux ran the paste's line): it is in, and its turn is
      // waited for as that supervisor would have (a restart after Enter must not stall the
      // queue). Neither: the line never reached tmux, and it goes in as if nothing happened.
      // (A mark of older nerdr, whose paste set nothing in tmux: it may be in.)
      const typing = q.messages.find((m) => m.typingAt !== null);
      const receipt = typing ? q.receipts.find((x) => x.id === typing.id) : undefined;
      const ran = typing?.tmuxMark === true && a.typedWhenFound === typing.id;
      if (typing && receipt && receipt.pastedAt === null && ran) receipt.pastedAt = typing.typingAt;
      if (typing && receipt?.pastedAt != null) this.awaitTurn(a, typing, receipt);
      else if (typing?.tmuxMark && !ran) this.untyped(a, q, typing);
      else if (typing) this.mayBeTyped(a, typing, 'the supervisor stopped while typing it');
      // a restarted supervisor goes on following the turn of the last message typed in
      const open = q.receipts.filter((r) => r.pastedAt !== null && r.closedAt === null).at(-1);
      if (open) this.active.set(a.id, open);
    }
    return q;
  }

  /**
   * A message that may have been typed in, though nothing confirmed it: it leaves the queue
   * without being typed again, and its receipt is closed saying so, with its text kept for
   * `nerdr send --retry`. The messages after it wait for a visit (as after a stall): an
   * unsubmitted text may sit in the agent's input, and the next paste would join it.
   */
  private mayBeTyped(a: WatchedAgent, m: QueuedMessage, why: string): void {
    const q = this.queue(a);
    q.messages = q.messages.filter((x) => x.id !== m.id);
    const now = this.deps.clock.now();
    if (q.messages.length > 0) q.stalledAt = now;
    const r = q.receipts.find((x) => x.id === m.id);
    const typed = r?.pastedAt != null ? 'was typed in, maybe not submitted' : 'may have been typed in';
    if (r) {
      if (this.active.get(a.id) === r) this.active.delete(a.id);
      r.closedAt = now;
      r.closed = `it ${typed} (${why}); not typed again: \`nerdr send --retry ${m.id}\` queues it again`;
      r.retryText = m.text;
    }
    this.persist(a, q);
    this.deps.log('warn', `${a.name}: message ${m.id} ${typed} (${why}); it left the queue without being typed again${q.messages.length > 0 ? '; the rest waits for a visit' : ''}`);
    if (r) this.deps.receipt?.(a, r);
  }

  /**
   * A message the supervisor before marked as typing, whose paste line tmux never ran (the
   * pane's @nerdr_typed does not name it): nothing was typed, and it goes in in its turn.
   */
  private untyped(a: WatchedAgent, q: AgentQueue, m: QueuedMessage): void {
    m.typingAt = null;
    delete m.tmuxMark;
    this.persist(a, q);
    this.deps.log('info', `${a.name}: message ${m.id} was being typed in when the supervisor before stopped; tmux never took its paste, so it goes in now`);
  }

  /**
   * A message the supervisor before pasted and died before its turn was confirmed: followed as
   * it would have been. Its turn (the prompt-submit hook, the agent working or asking) confirms
   * it and the queue goes on; none within CONFIRM_MS: it stalls, as any message that gets no
   * response (its text was typed in, maybe not submitted; the rest waits for a visit).
   */
  private awaitTurn(a: WatchedAgent, m: QueuedMessage, r: Receipt, said = 'was typed in by the supervisor before, which stopped before its turn'): void {
    const f: InFlight = { message: m, timer: null, pastedAt: r.pastedAt };
    this.inFlight.set(a.id, f);
    this.active.set(a.id, r);
    // the turn may have come and gone while no supervisor ran: the window's facts (taken back
    // after this) say when its last turn started, and stateChanged looks
    // confirmed here, no state change may follow (the turn ended already): the queue goes on now
    f.timer = this.deps.clock.after(CONFIRM_MS, () => {
      if (!this.turnSincePaste(a, f)) return this.stalled(a, f);
      this.confirmed(a, 'a turn started after it was typed in, while no supervisor ran');
      this.tryDeliver(a);
    });
    this.deps.log('info', `${a.name}: message ${m.id} ${said}; waiting ${CONFIRM_MS / 1000} s for it`);
  }

  /** A message a supervisor before typed in (awaitTurn): the agent's last turn began after its paste. */
  private turnSincePaste(a: WatchedAgent, f: InFlight): boolean {
    const turn = a.arbiter.lastTurnAt;
    return f.pastedAt != null && turn !== null && turn >= f.pastedAt;
  }

  /** The light's suffix: ✉n, or ✉n⏸ while stalled; '' with nothing queued. */
  suffix(a: WatchedAgent): string {
    const q = this.queue(a);
    const n = q.messages.length;
    if (n === 0) return '';
    return ` ✉${n}${q.stalledAt !== null ? '⏸' : ''}`;
  }

  /**
   * Queues a message. Returns only once it is on disk; throws an RpcError (and queues nothing)
   * when it cannot be typed in exactly as given or cannot be saved. `warning`: the earlier
   * queue file of this agent could not be read (it was kept aside).
   */
  enqueue(a: WatchedAgent, text: string): { id: string; position: number; warning?: string } {
    const why = undeliverable(text);
    if (why !== null) throw new RpcError('invalid_message', `the message cannot be typed in exactly: ${why}`);
    const q = this.queue(a);
    const m: QueuedMessage = { id: randomBytes(6).toString('hex'), text, queuedAt: this.deps.clock.now(), typingAt: null };
    this.add(a, q, m, () => undefined);
    this.tryDeliver(a);
    const warning = this.notices.get(a.id);
    this.notices.delete(a.id);
    return warning === undefined ? { id: m.id, position: q.messages.length } : { id: m.id, position: q.messages.length, warning };
  }

  /**
   * Queues a message before every message waiting (after one being typed in now): what nerdr
   * types when an agent's usage limit resets (`[agents] on_limit = "resume"`). Throws as enqueue.
   */
  enqueueFirst(a: WatchedAgent, text: string): { id: string; position: number } {
    const why = undeliverable(text);
    if (why !== null) throw new RpcError('invalid_message', `the message cannot be typed in exactly: ${why}`);
    const q = this.queue(a);
    const m: QueuedMessage = { id: randomBytes(6).toString('hex'), text, queuedAt: this.deps.clock.now(), typingAt: null };
    const at = q.messages[0]?.typingAt != null || this.inFlight.has(a.id) ? Math.min(1, q.messages.length) : 0;
    this.add(a, q, m, () => undefined, undefined, at);
    this.tryDeliver(a);
    return { id: m.id, position: at + 1 };
  }

  /**
   * Puts a message and its receipt in the queue, on disk before it returns (throws RpcError
   * queue_write_failed and queues nothing when it cannot); `undo` reverts the caller's own
   * change to the queue when the save fails.
   */
  private add(a: WatchedAgent, q: AgentQueue, m: QueuedMessage, undo: () => void, receipt?: Receipt, at = q.messages.length): void {
    const r: Receipt = receipt ?? { id: m.id, queuedAt: m.queuedAt, pastedAt: null, startedAt: null, states: [], stalledAt: null, closedAt: null, closed: null };
    q.messages.splice(at, 0, m);
    q.receipts.push(r);
    try {
      this.deps.store.save(a.id, q);
    } catch (err) {
      q.messages = q.messages.filter((x) => x !== m);
      q.receipts = q.receipts.filter((x) => x !== r);
      undo();
      const e = err as Error;
      this.deps.log('error', `${a.name}: a message was refused: the queue cannot be saved: ${e.message}`);
      const fix = e instanceof QueueWriteError ? e.fix : 'see the supervisor log, then send again';
      throw new RpcError('queue_write_failed', `the message was not queued: ${e.message}`, false, fix);
    }
    this.deps.changed(a);
  }

  /**
   * `nerdr send --retry ID`: a message that left the queue because it may have been typed in is
   * queued again, as a new message (its own id and receipt), for the window it was queued for.
   * The old receipt says so and no longer keeps the text: one retry per ask.
   */
  retry(id: string, window: (agentId: string) => WatchedAgent | null): { agent: WatchedAgent; id: string; position: number } {
    const found = this.receipt(id);
    if (!found) throw new RpcError('unknown_message', `no message ${id} (receipts are kept for a day, the last 20 per window)`);
    const old = found.receipt;
    if (old.retryText == null) {
      const why = old.closedAt === null ? 'is still on its way' : `ended: ${old.closed ?? 'closed'}`;
      throw new RpcError('not_retryable', `message ${id} ${why}; only a message that may have been typed in (its receipt says so) is queued again with --retry`);
    }
    const a = window(found.agentId);
    if (!a) throw new RpcError('agent_gone', `the window message ${id} was queued for is gone; its text is in \`nerdr send --status ${id} --json\` (receipt.retryText)`);
    const why = undeliverable(old.retryText);
    if (why !== null) throw new RpcError('invalid_message', `the message cannot be typed in exactly: ${why}`);
    const q = this.queue(a);
    const mine = q.receipts.find((x) => x.id === id) ?? old;
    const m: QueuedMessage = { id: randomBytes(6).toString('hex'), text: old.retryText, queuedAt: this.deps.clock.now(), typingAt: null };
    const before = { closed: mine.closed, retryText: mine.retryText };
    mine.closed = `${mine.closed ?? 'closed'}; queued again as ${m.id}`;
    mine.retryText = null;
    this.add(a, q, m, () => Object.assign(mine, before));
    this.deps.log('info', `${a.name}: message ${id} queued again as ${m.id} (nerdr send --retry)`);
    this.tryDeliver(a);
    return { agent: a, id: m.id, position: q.messages.length };
  }

  /**
   * `nerdr restore`: a saved message queued again for the window restored from the one it was
   * saved with, under its own id, unless that id is known already: queued for this or another
   * live window, typed in (or being typed, or closed) anywhere. Waiting in the queue file of a
   * window that is gone, it moves here (with its receipt), so only one queue holds it. Returns
   * why it was not queued, or null. Throws RpcError queue_write_failed as enqueue does.
   */
  requeue(a: WatchedAgent, saved: { id: string; text: string }): string | null {
    const why = undeliverable(saved.text);
    if (why !== null) return `it cannot be typed in exactly: ${why}`;
    const here = this.queue(a);
    if (here.messages.some((m) => m.id === saved.id) || here.receipts.some((r) => r.id === saved.id)) return 'it is queued for this window already';
    for (const q of this.queues.values()) {
      if (q === here) continue;
      if (q.messages.some((m) => m.id === saved.id)) return 'it is still queued for another window';
      const r = q.receipts.find((x) => x.id === saved.id);
      if (r) return knownReceipt(r);
    }
    // the queue files of windows that are gone
    let from: { agentId: string; queue: AgentQueue; receipt: Receipt | undefined } | null = null;
    for (const agentId of this.deps.store.ids()) {
      if (this.queues.has(agentId)) continue;
      const q = this.deps.store.load(agentId).queue;
      const m = q.messages.find((x) => x.id === saved.id);
      const r = q.receipts.find((x) => x.id === saved.id);
      if (m && m.typingAt !== null) return 'it may have been typed in already (a supervisor stopped while typing it)';
      if (m) from = { agentId, queue: q, receipt: r };
      else if (r) return knownReceipt(r);
      if (from) break;
    }
    const m: QueuedMessage = { id: saved.id, text: saved.text, queuedAt: this.deps.clock.now(), typingAt: null };
    this.add(a, here, m, () => undefined, from?.receipt ? { ...from.receipt } : undefined);
    if (from) {
      // it waited for a window that is gone: it moves here, so no other queue holds it
      from.queue.messages = from.queue.messages.filter((x) => x.id !== saved.id);
      from.queue.receipts = from.queue.receipts.filter((x) => x.id !== saved.id);
      try {
        this.deps.store.save(from.agentId, from.queue);
      } catch (err) {
        this.deps.log('warn', `${a.name}: message ${saved.id} stays in the queue file of the gone window ${from.agentId} too: ${(err as Error).message}`);
      }
    }
    this.tryDeliver(a);
    return null;
  }

  /** The queued message `id` among these windows' queues, and whether it is still only queued. */
  private findQueued(id: string, windows: readonly WatchedAgent[]): { a: WatchedAgent; q: AgentQueue; m: QueuedMessage } {
    for (const a of windows) {
      const q = this.queue(a);
      const m = q.messages.find((x) => x.id === id);
      if (!m) continue;
      if (m.typingAt !== null || this.inFlight.get(a.id)?.message === m) {
        throw new RpcError('not_queued', `message ${id} is being typed into ${a.name} (${a.windowId}) now: too late to change it`);
      }
      return { a, q, m };
    }
    const known = windows.map((a) => this.queue(a).receipts.find((r) => r.id === id)).find((r) => r !== undefined);
    if (known) throw new RpcError('not_queued', `message ${id} is no longer queued: ${known.closed ?? (known.pastedAt !== null ? 'it was typed in' : 'it left its queue')}`);
    throw new RpcError('unknown_row', `no queued message ${id}`);
  }

  /** `nerdr send --cancel ID`: a queued message leaves the queue untyped; its receipt says so. */
  cancel(id: string, windows: readonly WatchedAgent[]): { agent: WatchedAgent; id: string } {
    const { a, q, m } = this.findQueued(id, windows);
    const at = q.messages.indexOf(m);
    const r = q.receipts.find((x) => x.id === id);
    const before = r ? { closedAt: r.closedAt, closed: r.closed } : null;
    q.messages.splice(at, 1);
    if (r) {
      r.closedAt = this.deps.clock.now();
      r.closed = 'cancelled before it was typed in (nerdr send --cancel)';
    }
    try {
      this.deps.store.save(a.id, q);
    } catch (err) {
      q.messages.splice(at, 0, m);
      if (r && before) Object.assign(r, before);
      throw new RpcError('queue_write_failed', `message ${id} stays queued: the queue cannot be saved: ${(err as Error).message}`);
    }
    this.deps.log('info', `${a.name}: message ${id} cancelled before it was typed in`);
    this.deps.changed(a);
    if (r) this.deps.receipt?.(a, r);
    return { agent: a, id };
  }

  /** `nerdr send --edit ID TEXT`: a queued message gets new text before it is typed in; it keeps its place and id. */
  edit(id: string, text: string, windows: readonly WatchedAgent[]): { agent: WatchedAgent; id: string; position: number } {
    const why = undeliverable(text);
    if (why !== null) throw new RpcError('invalid_message', `the message cannot be typed in exactly: ${why}`);
    if (Buffer.byteLength(text) > MAX_MESSAGE_BYTES) throw new RpcError('too_large', `a message may hold at most ${MAX_MESSAGE_BYTES} bytes`);
    const { a, q, m } = this.findQueued(id, windows);
    const old = m.text;
    m.text = text;
    try {
      this.deps.store.save(a.id, q);
    } catch (err) {
      m.text = old;
      throw new RpcError('queue_write_failed', `message ${id} keeps its text: the queue cannot be saved: ${(err as Error).message}`);
    }
    this.deps.log('info', `${a.name}: message ${id} edited before it was typed in`);
    this.deps.changed(a);
    return { agent: a, id, position: q.messages.indexOf(m) + 1 };
  }

  /** The user looked at the window: a stalled queue goes on. */
  visited(a: WatchedAgent): void {
    const q = this.queue(a);
    if (q.stalledAt === null) return;
    q.stalledAt = null;
    this.persist(a, q);
    this.deps.log('info', `${a.name}: queue resumed after a visit`);
    this.deps.changed(a);
    this.tryDeliver(a);
  }

  /** The receipt of a message, by its id, with the agent id it was queued for; null when unknown. */
  receipt(id: string): { agentId: string; receipt: Receipt } | null {
    for (const [agentId, q] of this.queues) {
      const r = q.receipts.find((x) => x.id === id);
      if (r) return { agentId, receipt: r };
    }
    // a window that is gone: its queue file keeps the receipts
    for (const agentId of this.deps.store.ids()) {
      if (this.queues.has(agentId)) continue;
      const r = this.deps.store.load(agentId).queue.receipts.find((x) => x.id === id);
      if (r) return { agentId, receipt: r };
    }
    return null;
  }

  /** Called on every state change of the agent. */
  stateChanged(a: WatchedAgent): void {
    this.queue(a); // loaded first: it may hold a message the supervisor before typed in
    this.follow(a);
    const f = this.inFlight.get(a.id);
    if (f && f.timer && a.state === 'working') this.confirmed(a, 'the agent started working');
    else if (f && f.timer && a.state === 'blocked') this.confirmed(a, 'the agent asked a question');
    else if (f && f.timer && this.turnSincePaste(a, f)) this.confirmed(a, 'a turn started after it was typed in, while no supervisor ran');
    if (a.unknowable !== null) this.refuseWaiting(a, a.unknowable);
    this.tryDeliver(a);
  }

  /**
   * nerdr can no longer tell when the window's program waits for input (the quiet rule,
   * docs/state-rules.md): its waiting messages would wait for ever, so they leave the queue,
   * their receipts closed saying why. One being typed in goes on.
   */
  private refuseWaiting(a: WatchedAgent, why: string): void {
    const q = this.queue(a);
    const typing = this.inFlight.get(a.id)?.message.id;
    const waiting = q.messages.filter((m) => m.id !== typing);
    if (waiting.length === 0) return;
    q.messages = q.messages.filter((m) => m.id === typing);
    for (const m of waiting) {
      const r = q.receipts.find((x) => x.id === m.id);
      if (!r || r.closedAt !== null) continue;
      r.closedAt = this.deps.clock.now();
      r.closed = `not typed in: ${why}`;
      this.deps.receipt?.(a, r);
    }
    this.persist(a, q);
    this.deps.log('warn', `${a.name}: ${waiting.length} queued message(s) not typed in: ${why}`);
    this.deps.changed(a);
  }

  /** A prompt-submit / turn-start hook: the strongest confirmation. */
  promptSubmitted(a: WatchedAgent): void {
    this.queue(a); // loaded first: it may hold a message the supervisor before typed in
    const f = this.inFlight.get(a.id);
    if (f && f.timer) this.confirmed(a, 'prompt-submit hook');
  }

  forget(a: WatchedAgent): void {
    this.close(a, 'the window is gone');
    const f = this.inFlight.get(a.id);
    f?.timer?.cancel();
    this.inFlight.delete(a.id);
    this.queues.delete(a.id);
    this.notices.delete(a.id);
  }

  /**
   * Nothing is typed into the window until the returned function is called: a message about to
   * go first (the one after a usage limit) is not overtaken by the queue while it is being saved.
   */
  hold(a: WatchedAgent): () => void {
    const n = (this.holds.get(a.id) ?? 0) + 1;
    this.holds.set(a.id, n);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.holds.get(a.id) ?? 1) - 1;
      if (left > 0) this.holds.set(a.id, left);
      else this.holds.delete(a.id);
      this.tryDeliver(a);
    };
  }

  tryDeliver(a: WatchedAgent): void {
    // loaded first: loading may find a message the supervisor before was typing (awaitTurn)
    const q = this.queue(a);
    if (this.inFlight.has(a.id) || this.holds.has(a.id)) return;
    const next = q.messages[0];
    if (!next || q.stalledAt !== null) return;
    if (a.dead || a.inMode || a.seeding || (a.state !== 'idle' && a.state !== 'done')) return;
    const f: InFlight = { message: next, timer: null };
    this.inFlight.set(a.id, f);
    const buf = `nerdr-${randomBytes(6).toString('hex')}`;
    const p = a.paneId;
    // Re-check the pane on the same line: a pane that died or went into a mode since our
    // last notification gets nothing. The pane's @nerdr_typed settles a message marked as
    // being typed whose paste this supervisor never heard back about (below).
    this.deps.sendLine([command('display', '-p', '-t', p, `#{pane_dead}|#{pane_in_mode}|#{pane_input_off}|#{${TYPED_OPTION}}`)], ([r]) => {
      if (this.inFlight.get(a.id) !== f) return; // the window was forgotten meanwhile
      const [dead, mode, inputOff, typed] = (r?.ok ? r.lines.map((l) => l.toString()).join('') : '1|1|1|').split('|');
      if (dead === '1' || mode === '1' || inputOff === '1' || (a.state !== 'idle' && a.state !== 'done')) {
        this.inFlight.delete(a.id);
        return;
      }
      // marked, and tmux's answer to its paste was lost (the control client closed): tmux ran
      // the whole line, the pane's @nerdr_typed first, or none of it
      if (next.typingAt !== null) {
        if (typed !== next.id) this.deps.log('info', `${a.name}: message ${next.id}: tmux never ran its paste (its answer was lost), so it goes in now`);
        else {
          this.inFlight.delete(a.id);
          const receipt = this.queue(a).receipts.find((x) => x.id === next.id);
          if (!receipt) return this.mayBeTyped(a, next, 'tmux took its paste; its receipt is gone');
          // the turn of the message before is no longer this agent's latest
          this.close(a, 'the next message was typed in');
          receipt.pastedAt = next.typingAt;
          this.persist(a, this.queue(a));
          return this.awaitTurn(a, next, receipt, "was typed in (the pane says so; tmux's answer to the paste was lost)");
        }
      }
      if (!this.markTyping(a, next)) {
        this.inFlight.delete(a.id);
        return;
      }
      this.deps.sendLine(
        // the pane's @nerdr_typed first: tmux runs the whole line or none of it, so after a
        // crash that option says whether the paste ran (queue())
        [command('set-option', '-p', '-t', p, TYPED_OPTION, next.id), command('set-buffer', '-b', buf, pasteSafe(next.text)), command('paste-buffer', '-p', '-d', '-r', '-b', buf, '-t', p)],
        (replies) => {
          if (this.inFlight.get(a.id) !== f) return;
          if (!replies.every((x) => x.ok)) {
            this.inFlight.delete(a.id);
            const said = [...new Set(replies.map((x) => x.lines.join(' ').trim()).filter(Boolean))].join('; ');
            // tmux refused a command: it ran nothing after it, so nothing was typed
            if (replies.some((x) => !x.ok && !x.skipped)) {
              next.typingAt = null;
              delete next.tmuxMark;
              this.persist(a, this.queue(a));
              this.deps.log('warn', `${a.name}: paste failed: ${said}`);
              return;
            }
            // no answer (the control client closed): it stays marked, and the window's
            // @nerdr_typed says whether it went in before anything more is typed there
            this.deps.log('warn', `${a.name}: tmux's answer to the paste of message ${next.id} was lost${said ? ` (${said})` : ''}; the pane will say whether it went in before anything more is typed there`);
            return;
          }
          // the turn of the message before is no longer this agent's latest
          this.close(a, 'the next message was typed in');
          const r = this.queue(a).receipts.find((x) => x.id === next.id);
          if (r) {
            r.pastedAt = this.deps.clock.now();
            this.active.set(a.id, r);
            this.receiptMoved(a, r);
          }
          this.deps.clock.after(integrationFor(a.agent)?.enterDelayMs ?? DEFAULT_ENTER_DELAY_MS, () => this.pressEnter(a, f));
        },
      );
    });
  }

  /**
   * Marks the message as being typed, on disk before the paste is sent. False (and the queue
   * paused, the light showing it) when that cannot be written: a crash after an unrecorded
   * paste would type it a second time, so it is not typed now.
   */
  private markTyping(a: WatchedAgent, m: QueuedMessage): boolean {
    const q = this.queue(a);
    m.typingAt = this.deps.clock.now();
    m.tmuxMark = true;
    try {
      this.deps.store.save(a.id, q);
      return true;
    } catch (err) {
      m.typingAt = null;
      delete m.tmuxMark;
      q.stalledAt = this.deps.clock.now();
      const e = err as Error;
      this.deps.log('error', `${a.name}: message ${m.id} not typed in: the queue cannot be saved: ${e.message}${e instanceof QueueWriteError ? `; fix: ${e.fix}` : ''}; the queue waits for a visit of the window`);
      this.deps.changed(a);
      return false;
    }
  }

  private pressEnter(a: WatchedAgent, f: InFlight): void {
    // In copy mode a key would be a copy-mode command: write a raw CR to the pty instead.
    const enter = a.inMode
      ? [command('set-buffer', '-b', 'nerdr-cr', '\r'), command('paste-buffer', '-d', '-b', 'nerdr-cr', '-t', a.paneId)]
      : [command('send-keys', '-t', a.paneId, 'Enter')];
    this.deps.sendLine(enter, () => {
      f.timer = this.deps.clock.after(CONFIRM_MS, () => this.stalled(a, f));
      // the quiet rule shows the pasted text's echo as output, so the program works already
      if (a.state === 'working' && a.arbiter.view().quiet !== null) this.confirmed(a, 'its output flows since the text was typed in');
    });
  }

  private confirmed(a: WatchedAgent, why: string): void {
    const f = this.inFlight.get(a.id);
    if (!f) return;
    f.timer?.cancel();
    this.inFlight.delete(a.id);
    const q = this.queue(a);
    q.messages = q.messages.filter((m) => m.id !== f.message.id);
    const r = this.active.get(a.id);
    if (r && r.id === f.message.id && r.startedAt === null) {
      r.startedAt = this.deps.clock.now();
      if (a.state === 'working' || a.state === 'blocked') r.states.push({ state: a.state, at: r.startedAt });
      this.deps.receipt?.(a, r);
    }
    this.persist(a, q);
    this.deps.log('info', `${a.name}: message ${f.message.id} delivered (${why})`);
    this.deps.changed(a);
  }

  private stalled(a: WatchedAgent, f: InFlight): void {
    if (this.inFlight.get(a.id) !== f) return;
    this.inFlight.delete(a.id);
    const q = this.queue(a);
    // The text did reach the agent's input; whether it was taken is unknown. Pasting it again
    // would type it twice, so it leaves the queue; the rest waits, in order, for the user.
    q.messages = q.messages.filter((m) => m.id !== f.message.id);
    q.stalledAt = this.deps.clock.now();
    const r = this.active.get(a.id);
    if (r && r.id === f.message.id) {
      r.stalledAt = q.stalledAt;
      this.deps.receipt?.(a, r);
    }
    this.persist(a, q);
    this.deps.log('warn', `${a.name}: no response ${CONFIRM_MS / 1000} s after message ${f.message.id}; queue paused until the window is visited`);
    this.deps.changed(a);
  }

  /** The turn the last message started: each state after it, until the agent goes away. */
  private follow(a: WatchedAgent): void {
    const r = this.active.get(a.id);
    if (!r || r.startedAt === null) return;
    const last = r.states[r.states.length - 1];
    if (last?.state !== a.state && r.states.length < RECEIPT_STATES_KEPT) {
      r.states.push({ state: a.state, at: this.deps.clock.now() });
      if (a.dead) this.close(a, 'the agent exited');
      else this.receiptMoved(a, r);
    } else if (a.dead) this.close(a, 'the agent exited');
  }

  /** Nothing more is recorded on the agent's active receipt. */
  private close(a: WatchedAgent, why: string): void {
    const r = this.active.get(a.id);
    if (!r) return;
    this.active.delete(a.id);
    r.closedAt = this.deps.clock.now();
    r.closed = why;
    this.receiptMoved(a, r);
  }

  private receiptMoved(a: WatchedAgent, r: Receipt): void {
    this.persist(a, this.queue(a));
    this.deps.receipt?.(a, r);
  }

  /** A change after queueing (delivered, stalled, resumed): not being able to save it is logged. */
  private persist(a: WatchedAgent, q: AgentQueue): void {
    try {
      this.deps.store.save(a.id, q);
    } catch (err) {
      const e = err as Error;
      this.deps.log('error', `cannot save the queue of ${a.name}: ${e.message}${e instanceof QueueWriteError ? `; fix: ${e.fix}` : ''}`);
    }
  }
}

/** Why a message whose receipt is known is not queued again. */
function knownReceipt(r: Receipt): string {
  if (r.pastedAt !== null) return 'it was typed in already';
  if (r.closedAt !== null) return `it ended already (${r.closed ?? 'closed'})`;
  return 'it is known already';
}

/**
 * The text as typed, except that a bracketed-paste end marker inside it would end the paste
 * early and let the rest act as keystrokes: it is cut out. (New messages holding one are
 * refused by enqueue; this guards queues written before.)
 */
export function pasteSafe(text: string): string {
  return text.replace(/\x1b\[201~/g, '');
}

const PASTE_END = '\x1b[201~';

/**
 * Why a message cannot reach the agent exactly as given, or null. Such a message is refused
 * rather than changed on the way: a NUL (tmux's command parser and a terminal's input end a
 * string there: only the text before it would arrive), a lone UTF-16 surrogate (not a
 * character: it would arrive as U+FFFD), and the bracketed-paste end marker (it would end the
 * paste early and the rest would act as keys). Offsets are in bytes of the UTF-8 text.
 */
export function undeliverable(text: string): string | null {
  const nul = text.indexOf('\0');
  const lone = /[\uD800-\uDFFF]/u.exec(text);
  const paste = text.indexOf(PASTE_END);
  const first = Math.min(...[nul, lone?.index ?? -1, paste].filter((i) => i >= 0));
  if (!Number.isFinite(first)) return null;
  const at = Buffer.byteLength(text.slice(0, first));
  if (first === nul) return `it holds a NUL byte at byte offset ${at}; a terminal cannot receive one (only the text before it would arrive)`;
  if (first === paste) return `it holds the bracketed-paste end sequence ESC [201~ at byte offset ${at}, which would end the paste early and type the rest as keys`;
  return `it holds a lone UTF-16 surrogate (U+${text.charCodeAt(first).toString(16).toUpperCase()}) at byte offset ${at}, which is not a character`;
}

/**
 * Why raw message bytes (a pipe into \`nerdr send -\`) cannot be delivered exactly, or null:
 * a NUL byte, or bytes that are not UTF-8 (a terminal paste would replace them with U+FFFD).
 * Offsets count from 0.
 */
export function undeliverableBytes(bytes: Uint8Array): string | null {
  const nul = bytes.indexOf(0);
  const bad = invalidUtf8At(bytes);
  if (nul >= 0 && (bad < 0 || nul < bad)) return `it holds a NUL byte at byte offset ${nul}; a terminal cannot receive one (only the text before it would arrive)`;
  if (bad >= 0) {
    const shown = Array.from(bytes.subarray(bad, Math.min(bad + 4, bytes.length)), (b) => `0x${b.toString(16).padStart(2, '0')}`).join(' ');
    return `it is not valid UTF-8: the bytes at byte offset ${bad} (${shown}…) are not a character`;
  }
  return null;
}

/** The offset of the first byte that does not start a valid UTF-8 sequence, or -1. */
export function invalidUtf8At(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i += 1;
      continue;
    }
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0; // overlong
      if (c === 0xed) hi = 0x9f; // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90; // overlong
      if (c === 0xf4) hi = 0x8f; // above U+10FFFF
    } else return i;
    for (let k = 1; k <= n; k++) {
      const x = b[i + k];
      if (x === undefined) return i;
      if (k === 1 ? x < lo || x > hi : x < 0x80 || x > 0xbf) return i;
    }
    i += n + 1;
  }
  return -1;
}
