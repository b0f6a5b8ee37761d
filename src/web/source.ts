// Where the web page's inbox comes from and its answers go: the supervisor's methods
// (nerdr.inbox, nerdr.answer, nerdr.snooze, nerdr.cancel) and its nerdr.subscribe stream, behind
// one small interface the server takes, so test/unit/web runs the server on a fake.

import type { AnswerChoice, AnswerResult, InboxRow } from '../protocol/inbox.js';
import { request, subscribe, SocketRequestError, type Subscription } from '../supervisor/socket/index.js';
import { exitFor } from '../errors.js';
import { nerdrSaid } from '../text.js';

export interface AnswerParams {
  target: string;
  prompt: string;
  choice: AnswerChoice;
  text?: string;
  /** A fleet host's row: answered by that host's own nerdr over ssh. */
  host?: string;
}

export interface InboxSource {
  inbox(): Promise<InboxRow[]>;
  answer(p: AnswerParams): Promise<AnswerResult>;
  snooze(p: { id: string; forMs: number; host?: string }): Promise<{ id: string; until: number }>;
  cancel(p: { id: string; host?: string }): Promise<unknown>;
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
    answer: ({ host, ...p }) => (host ? Promise.reject(noFleet(host)) : ask<AnswerResult>('nerdr.answer', p)),
    snooze: ({ host, ...p }) => (host ? Promise.reject(noFleet(host)) : ask('nerdr.snooze', p)),
    cancel: ({ host, ...p }) => (host ? Promise.reject(noFleet(host)) : ask('nerdr.cancel', p)),
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

function noFleet(host: string): SourceError {
  return new SourceError('unknown_target', `no fleet host "${host}" is followed here`, 'nerdr fleet ls lists the hosts');
}

/** How fleet rows are pulled and acted on (the CLI's ssh, src/cli/fleet.ts); tests give their own. */
export interface FleetDeps {
  /** The connected hosts' names now (the supervisor's `nerdr.fleet`). */
  hosts(): Promise<string[]>;
  /** These hosts' inbox rows, marked with their host. */
  rows(hosts: string[]): Promise<InboxRow[]>;
  /** The host's own nerdr with these arguments, over ssh: its exit status, stdout and stderr. */
  run(host: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** How often the fleet's inboxes are read again while the page is followed (each host: one ssh). */
export const FLEET_PULL_MS = 5000;

/**
 * The local source with every connected fleet host's rows beside its own (read over ssh every
 * FLEET_PULL_MS while followed), and a fleet row's answer, snooze or cancel run by that host's
 * own nerdr (`answer … --prompt ID`, whose prompt check is the host's; exit 7 is "the prompt changed").
 */
export function withFleet(local: InboxSource, fleet: FleetDeps): InboxSource {
  let remote: InboxRow[] = [];
  const pull = async (): Promise<void> => {
    remote = await fleet.rows(await fleet.hosts()).catch(() => remote);
  };
  const onHost = async (host: string, args: string[]): Promise<string> => {
    const r = await fleet.run(host, args);
    if (r.code === 0) return r.stdout;
    throw new SourceError(r.code === exitFor('prompt_changed') ? 'prompt_changed' : 'failed', `${host}: ${nerdrSaid(r.stderr, r.code)}`);
  };
  return {
    inbox: async () => [...(await local.inbox()), ...remote].sort((a, b) => a.since - b.since),
    answer: async (p) => {
      if (!p.host) return local.answer(p);
      const out = await onHost(p.host, ['answer', p.target, String(p.choice), '--prompt', p.prompt, '--json', ...(p.text ? ['--text', p.text] : [])]);
      await pull();
      return JSON.parse(out) as AnswerResult;
    },
    snooze: async (p) => {
      if (!p.host) return local.snooze(p);
      const out = await onHost(p.host, ['inbox', 'snooze', p.id, `${Math.round(p.forMs / 1000)}s`, '--json']);
      await pull();
      return JSON.parse(out) as { id: string; until: number };
    },
    cancel: async (p) => {
      if (!p.host) return local.cancel(p);
      const out = await onHost(p.host, ['send', '--cancel', p.id, '--json']);
      await pull();
      return JSON.parse(out) as unknown;
    },
    follow(onChange) {
      const stop = local.follow(onChange);
      let timer: NodeJS.Timeout | null = null;
      let stopped = false;
      const tick = async (): Promise<void> => {
        const before = JSON.stringify(remote);
        await pull();
        if (stopped) return;
        if (JSON.stringify(remote) !== before) onChange();
        timer = setTimeout(() => void tick(), FLEET_PULL_MS);
      };
      void tick();
      return () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        stop();
      };
    },
  };
}
