// Queued messages per agent, kept on disk so they survive a supervisor restart:
//
//   <state>/queues/<agent id>.json                  the queue, written atomically and fsync'd on every change
//   <state>/queues/<agent id>.broken-<time>.json    a file that could not be read, moved aside, never overwritten
//
// A message being typed in carries `typingAt`, written before the paste: a supervisor that finds
// it on start asks tmux whether the paste ran (`tmuxMark`: the pane's @nerdr_typed), and never
// types it twice.
//
// A save returns only once the queue is on disk, and throws (QueueWriteError) when it is not:
// the caller must not report a message as queued then. A file that is empty, truncated, not
// JSON, of the wrong shape or unreadable is never taken for an empty queue that the next save
// would overwrite: it is moved aside, and the problem is reported.

import { existsSync, readFileSync, readdirSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { brokenPath, writeFileAtomic } from './atomic.js';

export interface QueuedMessage {
  id: string;
  text: string;
  queuedAt: number;
  /**
   * Set (and on disk) just before the message is pasted, until its turn is confirmed or it
   * stalls and it leaves the queue: found set by a supervisor that starts, it may have been
   * typed in already. Null while it waits.
   */
  typingAt: number | null;
  /**
   * With typingAt: the paste's line sets the pane's @nerdr_typed to this message's id, so a
   * supervisor that starts can tell whether tmux ran it (src/supervisor/messages.ts). Absent in
   * marks of older nerdr, whose pastes set nothing: such a message may have been typed.
   */
  tmuxMark?: boolean;
}

export interface AgentQueue {
  messages: QueuedMessage[];
  /** Set when a delivery got no response: the queue waits for the user to visit the window. */
  stalledAt: number | null;
  /** What became of the latest messages (nerdr send --wait / --status), newest last. */
  receipts: Receipt[];
}

/**
 * What became of one queued message: typed in (pasted), the turn it started (the first working,
 * or a question, after the paste), and every state the agent was in after that until the next
 * message was typed in or the agent went away (`closed`).
 */
export interface Receipt {
  id: string;
  queuedAt: number;
  pastedAt: number | null;
  startedAt: number | null;
  states: { state: string; at: number }[];
  /** No response to it within 5 s: the queue paused until the window is visited. */
  stalledAt: number | null;
  closedAt: number | null;
  /** Why nothing more is recorded: the next message, the agent's exit, the window gone. */
  closed: string | null;
  /**
   * The message's text, kept while `nerdr send --retry ID` may queue it again: it left the queue
   * because it may have been typed in (the supervisor stopped, or lost tmux, while typing it).
   * Null otherwise; absent in files of older nerdr.
   */
  retryText?: string | null;
}

/** Receipts kept per agent, and for how long. */
export const RECEIPTS_KEPT = 20;
export const RECEIPT_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** States kept per receipt (the first ones after the turn started). */
export const RECEIPT_STATES_KEPT = 50;

export interface LoadedQueue {
  queue: AgentQueue;
  /** Set when the file on disk could not be used: what happened to it (for the log and the user). */
  problem: string | null;
}

export interface QueueStoreOptions {
  now?: () => number;
  /** Writes a file durably (tests inject failures: a full disk). Default: writeFileAtomic. */
  write?: (file: string, data: string) => void;
}

const receiptSchema = z.object({
  id: z.string(),
  queuedAt: z.number(),
  pastedAt: z.number().nullable(),
  startedAt: z.number().nullable(),
  states: z.array(z.object({ state: z.string(), at: z.number() })),
  stalledAt: z.number().nullable(),
  closedAt: z.number().nullable(),
  closed: z.string().nullable(),
  retryText: z.string().nullable().optional(),
});

const queueSchema = z.object({
  // typingAt: absent in files of older nerdr (nothing was being typed then)
  messages: z.array(z.object({ id: z.string(), text: z.string(), queuedAt: z.number(), typingAt: z.number().nullable().optional(), tmuxMark: z.boolean().optional() })),
  stalledAt: z.number().nullable(),
  // queue files written before receipts existed have none
  receipts: z.array(receiptSchema).optional(),
});

/** A queue could not be written: the change is not on disk. The message says why and what to do. */
export class QueueWriteError extends Error {
  constructor(
    message: string,
    readonly fix: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'QueueWriteError';
  }
}

export class QueueStore {
  private readonly now: () => number;
  private readonly write: (file: string, data: string) => void;
  private readonly found: string[] = [];
  /** Agents whose broken file could not be moved aside: never written over. */
  private readonly stuck = new Map<string, string>();

  constructor(
    private readonly dir: string,
    opts: QueueStoreOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.write = opts.write ?? ((f, d) => writeFileAtomic(f, d));
  }

  private file(agentId: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(agentId)) throw new Error(`bad agent id ${JSON.stringify(agentId)}`);
    return path.join(this.dir, `${agentId}.json`);
  }

  load(agentId: string): LoadedQueue {
    const file = this.file(agentId);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // no file, or no queue folder (then the next save says why it cannot write one)
      if (code === 'ENOENT' || code === 'ENOTDIR') return { queue: empty(), problem: null };
      return { queue: empty(), problem: this.moveAside(agentId, file, `cannot be read: ${code ?? (err as Error).message}`) };
    }
    const reason = brokenReason(text);
    if (typeof reason !== 'string') return { queue: reason, problem: null };
    return { queue: empty(), problem: this.moveAside(agentId, file, reason) };
  }

  /**
   * Writes the queue (an empty one removes the file). Throws QueueWriteError when it is not on
   * disk. Receipts past RECEIPTS_KEPT or RECEIPT_MAX_AGE_MS are dropped from `q` itself first,
   * except those of messages still queued (their delivery is recorded there).
   */
  save(agentId: string, q: AgentQueue): void {
    const file = this.file(agentId);
    const stuck = this.stuck.get(agentId);
    if (stuck !== undefined && !existsSync(file)) this.stuck.delete(agentId);
    else if (stuck !== undefined) {
      throw new QueueWriteError(`${file} could not be read and is still in the way (${stuck})`, `move ${JSON.stringify(file)} away, then send again`, undefined);
    }
    const cutoff = this.now() - RECEIPT_MAX_AGE_MS;
    const queued = new Set(q.messages.map((m) => m.id));
    const old = q.receipts.filter((r) => !queued.has(r.id) && (r.closedAt ?? r.queuedAt) < cutoff);
    const kept = q.receipts.filter((r) => !old.includes(r));
    const extra = kept.filter((r) => !queued.has(r.id)).slice(0, Math.max(0, kept.length - RECEIPTS_KEPT));
    q.receipts = kept.filter((r) => !extra.includes(r));
    if (q.messages.length === 0 && q.stalledAt === null && q.receipts.length === 0) {
      try {
        unlinkSync(file);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT') throw writeError(file, err);
      }
      return;
    }
    try {
      this.write(file, JSON.stringify(q));
    } catch (err) {
      throw writeError(file, err);
    }
  }

  ids(): string[] {
    try {
      return readdirSync(this.dir)
        .filter((f) => /^[A-Za-z0-9_-]+\.json$/.test(f))
        .map((f) => f.slice(0, -5));
    } catch {
      return [];
    }
  }

  /** Files found broken (moved aside, or not movable) since this store was made. */
  problems(): string[] {
    return [...this.found];
  }

  private moveAside(agentId: string, file: string, reason: string): string {
    const aside = brokenPath(this.dir, agentId, this.now());
    try {
      renameSync(file, aside);
    } catch (err) {
      const msg = `the message queue ${file} ${reason}, and could not be moved aside (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); its messages are not delivered and new ones are refused until it is moved away by hand`;
      this.stuck.set(agentId, reason);
      this.found.push(msg);
      return msg;
    }
    const msg = `the message queue ${file} ${reason}; its messages were not delivered; it is kept as ${aside}`;
    this.found.push(msg);
    return msg;
  }
}

function empty(): AgentQueue {
  return { messages: [], stalledAt: null, receipts: [] };
}

/** The queue in the text, or why it is not one. */
function brokenReason(text: string): AgentQueue | string {
  if (text.trim() === '') return text.length === 0 ? 'is empty' : 'holds only white space';
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return `is not JSON (truncated or garbled: ${(err as Error).message})`;
  }
  const r = queueSchema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    const where = first?.path.length ? first.path.join('.') : 'the file';
    return `is not a message queue (${where}: ${first?.message ?? 'invalid'})`;
  }
  return {
    messages: r.data.messages.map((m) => ({ id: m.id, text: m.text, queuedAt: m.queuedAt, typingAt: m.typingAt ?? null, ...(m.tmuxMark === true ? { tmuxMark: true } : {}) })),
    stalledAt: r.data.stalledAt,
    receipts: (r.data.receipts ?? []).map((x) => ({ ...x, states: x.states.map((s) => ({ ...s })) })),
  };
}

function writeError(file: string, err: unknown): QueueWriteError {
  const e = err as NodeJS.ErrnoException;
  const code = e.code;
  const dir = path.dirname(file);
  const cause = `cannot write ${file}: ${e.message}`;
  const fixes: Record<string, string> = {
    ENOSPC: `free some space on the disk that holds ${dir}, then send again`,
    EDQUOT: `free some space (the disk quota is used up) for ${dir}, then send again`,
    EROFS: `${dir} is on a read-only file system: point NERDR_STATE_DIR at a writable folder, or remount it, then send again`,
    EACCES: `make ${dir} writable for you (chmod 700 ${JSON.stringify(dir)}), then send again`,
    EPERM: `make ${dir} writable for you (chmod 700 ${JSON.stringify(dir)}), then send again`,
    ENOTDIR: `${dir} or a folder above it is not a folder: move that file away, then send again`,
    EEXIST: `${dir} is not a folder: move that file away, then send again`,
    EIO: `the disk that holds ${dir} reported an I/O error: check it, then send again`,
  };
  return new QueueWriteError(cause, (code && fixes[code]) ?? `check that ${dir} is a writable folder with free space, then send again`, code);
}
