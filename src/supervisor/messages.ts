// Automatic messages: a queue per agent, delivered one at a time when the agent is idle or
// done and not in copy mode — never while it is blocked, since text typed into a permission
// dialog answers it. The message is pasted (bracketed when the agent asked for it), Enter
// follows as a separate key after a per-agent delay, and delivery counts as confirmed when
// the agent starts working (its prompt-submit hook or its screen). No response within 5 s:
// the queue stalls (light ✉n⏸) until the user visits the window.

import { randomBytes } from 'node:crypto';
import { command } from '../tmux/quote.js';
import type { Reply } from '../tmux/client.js';
import type { QueueStore, QueuedMessage, AgentQueue } from '../store/queue.js';
import type { WatchedAgent } from './agent.js';
import type { Logger } from './log.js';

export const CONFIRM_MS = 5000;
const ENTER_DELAY_MS: Record<string, number> = { codex: 200, claude: 150, opencode: 150, gemini: 150, copilot: 150 };
const DEFAULT_ENTER_DELAY_MS = 150;
/** Largest message accepted (the 100 KB case fits). */
export const MAX_MESSAGE_BYTES = 256 * 1024;

interface InFlight {
  message: QueuedMessage;
  timer: NodeJS.Timeout | null;
}

export interface MessengerDeps {
  sendLine(commands: string[], done: (replies: Reply[]) => void): void;
  log: Logger;
  store: QueueStore;
  now(): number;
  /** The queue's count or stall changed: repaint the light. */
  changed(a: WatchedAgent): void;
}

export class Messenger {
  private readonly queues = new Map<string, AgentQueue>();
  private readonly inFlight = new Map<string, InFlight>();

  constructor(private readonly deps: MessengerDeps) {}

  queue(a: WatchedAgent): AgentQueue {
    let q = this.queues.get(a.id);
    if (!q) {
      q = this.deps.store.load(a.id);
      this.queues.set(a.id, q);
    }
    return q;
  }

  /** The light's suffix: ✉n, or ✉n⏸ while stalled; '' with nothing queued. */
  suffix(a: WatchedAgent): string {
    const q = this.queue(a);
    const n = q.messages.length;
    if (n === 0) return '';
    return ` ✉${n}${q.stalledAt !== null ? '⏸' : ''}`;
  }

  enqueue(a: WatchedAgent, text: string): { id: string; position: number } {
    const q = this.queue(a);
    const m: QueuedMessage = { id: randomBytes(6).toString('hex'), text, queuedAt: this.deps.now() };
    q.messages.push(m);
    this.persist(a, q);
    this.deps.changed(a);
    this.tryDeliver(a);
    return { id: m.id, position: q.messages.length };
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

  /** Called on every state change of the agent. */
  stateChanged(a: WatchedAgent): void {
    const f = this.inFlight.get(a.id);
    if (f && f.timer && a.state === 'working') this.confirmed(a, 'the agent started working');
    else if (f && f.timer && a.state === 'blocked') this.confirmed(a, 'the agent asked a question');
    this.tryDeliver(a);
  }

  /** A prompt-submit / turn-start hook: the strongest confirmation. */
  promptSubmitted(a: WatchedAgent): void {
    const f = this.inFlight.get(a.id);
    if (f && f.timer) this.confirmed(a, 'prompt-submit hook');
  }

  forget(a: WatchedAgent): void {
    const f = this.inFlight.get(a.id);
    if (f?.timer) clearTimeout(f.timer);
    this.inFlight.delete(a.id);
    this.queues.delete(a.id);
  }

  tryDeliver(a: WatchedAgent): void {
    if (this.inFlight.has(a.id)) return;
    const q = this.queue(a);
    const next = q.messages[0];
    if (!next || q.stalledAt !== null) return;
    if (a.dead || a.inMode || a.seeding || (a.state !== 'idle' && a.state !== 'done')) return;
    const f: InFlight = { message: next, timer: null };
    this.inFlight.set(a.id, f);
    const buf = `nerdr-${randomBytes(6).toString('hex')}`;
    const p = a.paneId;
    // Re-check the pane on the same line: a pane that died or went into a mode since our
    // last notification gets nothing.
    this.deps.sendLine([command('display', '-p', '-t', p, '#{pane_dead}|#{pane_in_mode}|#{pane_input_off}')], ([r]) => {
      const [dead, mode, inputOff] = (r?.ok ? r.lines.map((l) => l.toString()).join('') : '1|1|1').split('|');
      if (dead === '1' || mode === '1' || inputOff === '1' || (a.state !== 'idle' && a.state !== 'done')) {
        this.inFlight.delete(a.id);
        return;
      }
      this.deps.sendLine(
        [command('set-buffer', '-b', buf, pasteSafe(next.text)), command('paste-buffer', '-p', '-d', '-r', '-b', buf, '-t', p)],
        (replies) => {
          if (!replies.every((x) => x.ok)) {
            this.inFlight.delete(a.id);
            this.deps.log('warn', `${a.name}: paste failed: ${replies.map((x) => x.lines.join(' ')).join(' ')}`);
            return;
          }
          setTimeout(() => this.pressEnter(a, f), ENTER_DELAY_MS[a.agent] ?? DEFAULT_ENTER_DELAY_MS);
        },
      );
    });
  }

  private pressEnter(a: WatchedAgent, f: InFlight): void {
    // In copy mode a key would be a copy-mode command: write a raw CR to the pty instead.
    const enter = a.inMode
      ? [command('set-buffer', '-b', 'nerdr-cr', '\r'), command('paste-buffer', '-d', '-b', 'nerdr-cr', '-t', a.paneId)]
      : [command('send-keys', '-t', a.paneId, 'Enter')];
    this.deps.sendLine(enter, () => {
      f.timer = setTimeout(() => this.stalled(a, f), CONFIRM_MS);
    });
  }

  private confirmed(a: WatchedAgent, why: string): void {
    const f = this.inFlight.get(a.id);
    if (!f) return;
    if (f.timer) clearTimeout(f.timer);
    this.inFlight.delete(a.id);
    const q = this.queue(a);
    q.messages = q.messages.filter((m) => m.id !== f.message.id);
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
    q.stalledAt = this.deps.now();
    this.persist(a, q);
    this.deps.log('warn', `${a.name}: no response ${CONFIRM_MS / 1000} s after message ${f.message.id}; queue paused until the window is visited`);
    this.deps.changed(a);
  }

  private persist(a: WatchedAgent, q: AgentQueue): void {
    try {
      this.deps.store.save(a.id, q);
    } catch (err) {
      this.deps.log('error', `cannot save the queue of ${a.name}: ${(err as Error).message}`);
    }
  }
}

/**
 * The text as typed, except that a bracketed-paste end marker inside it would end the paste
 * early and let the rest act as keystrokes: it is cut out.
 */
export function pasteSafe(text: string): string {
  return text.replace(/\x1b\[201~/g, '');
}
