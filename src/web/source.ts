// Where the web page's inbox comes from and its answers go: the supervisor's methods
// (nerdr.inbox, nerdr.answer, nerdr.snooze, nerdr.cancel) and its nerdr.subscribe stream, behind
// one small interface the server takes, so test/unit/web runs the server on a fake.

import type { AnswerChoice, AnswerResult, InboxRow } from '../protocol/inbox.js';
import { request, subscribe, SocketRequestError, type Subscription } from '../supervisor/socket/index.js';

export interface AnswerParams {
  target: string;
  prompt: string;
  choice: AnswerChoice;
  text?: string;
}

export interface InboxSource {
  inbox(): Promise<InboxRow[]>;
  answer(p: AnswerParams): Promise<AnswerResult>;
  snooze(p: { id: string; forMs: number }): Promise<{ id: string; until: number }>;
  cancel(p: { id: string }): Promise<unknown>;
  /** Calls `onChange` after every change of the agents (as often as the stream says; the server coalesces). Returns the stop. */
  follow(onChange: () => void): () => void;
}

/** A refusal or failure of the source, as the page is told it: the supervisor's code, words and fix. */
export class SourceError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly fix?: string,
    /** The reply's `data`, when the supervisor sent one (prompt_changed: the new prompt). */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

/** Codes that say the supervisor could not be asked at all (the page says so; nothing was refused). */
export const UNREACHABLE = new Set(['server_not_running', 'connection_failed', 'connection_closed', 'timeout', 'no_answer', 'invalid_response']);

function sourceError(err: unknown): unknown {
  if (!(err instanceof SocketRequestError)) return err;
  const reply = err.response as { error?: { data?: unknown } } | undefined;
  return new SourceError(err.code, err.message, err.fix, reply?.error?.data);
}

/** Backoff of the stream after its connection closed (a supervisor revived by tmux comes back within seconds). */
const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 5000;

/**
 * The supervisor at `socketFile`. `caller` is the NERDR_TAB of an agent window nerdr web was
 * started in, passed on so the supervisor applies its limits (src/cli/web.ts refuses that today).
 */
export function supervisorSource(socketFile: string, caller?: string): InboxSource {
  const ask = async <T>(method: string, params: object): Promise<T> => {
    try {
      return (await request(socketFile, method, { ...params, ...(caller ? { caller } : {}) }, { timeoutMs: 10_000 })) as T;
    } catch (err) {
      throw sourceError(err);
    }
  };
  return {
    inbox: async () => (await ask<{ rows: InboxRow[] }>('nerdr.inbox', {})).rows,
    answer: (p) => ask<AnswerResult>('nerdr.answer', p),
    snooze: (p) => ask('nerdr.snooze', p),
    cancel: (p) => ask('nerdr.cancel', p),
    follow(onChange) {
      let stopped = false;
      let sub: Subscription | null = null;
      let retry: NodeJS.Timeout | null = null;
      let wait = RETRY_FIRST_MS;
      const connect = async (): Promise<void> => {
        retry = null;
        try {
          sub = await subscribe(socketFile, 'nerdr.subscribe', {}, { timeoutMs: 10_000 });
        } catch {
          sub = null;
        }
        if (stopped) return sub?.close();
        if (sub) {
          wait = RETRY_FIRST_MS;
          onChange(); // what changed while no stream was there
          for await (const _ of sub.events) onChange();
        }
        if (stopped) return;
        // the stream ended or never started: the page shows the supervisor as away until it answers again
        onChange();
        retry = setTimeout(() => void connect(), wait);
        wait = Math.min(wait * 2, RETRY_MAX_MS);
      };
      void connect();
      return () => {
        stopped = true;
        if (retry) clearTimeout(retry);
        sub?.close();
      };
    },
  };
}
