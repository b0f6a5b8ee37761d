// `nerdr send`, `nerdr wait`: messages to an agent, and waiting for its state.

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { DEFAULT_MAX_LINE_BYTES } from '../supervisor/socket/server.js';
import { MAX_MESSAGE_BYTES, undeliverableBytes } from '../supervisor/messages.js';
import { call, callerSecret, ensureSupervisor, socketError, tmuxSocket } from './context.js';
import { printJson } from './print.js';
import { subscribe, SocketRequestError } from '../supervisor/socket/index.js';
import type { Receipt } from '../store/queue.js';
import { receiptEnd, receiptSteps, SEND_EXIT, stepText, type ReceiptStep } from './receipts.js';
import { remote } from './remote.js';
import { AGENT_STATES } from '../protocol/index.js';

/** The states a wait can end on: the protocol's list (src/protocol/params.ts). */
const STATES: readonly string[] = AGENT_STATES;

export async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The message as bytes must be one the agent can receive exactly: no NUL, valid UTF-8. Node
 * decodes both stdin and argv with U+FFFD for bytes that are not UTF-8, so the check runs on
 * the bytes themselves (for argv, /proc/self/cmdline, read only when a word holds U+FFFD).
 */
export function refuseUndeliverable(bytes: Buffer, from: string): void {
  const why = undeliverableBytes(bytes);
  if (why === null) return;
  const fix = /NUL/.test(why)
    ? "remove the NUL bytes (e.g. `tr -d '\\000'`), or send a text file"
    : 'convert the text to UTF-8 first (e.g. `iconv -f latin1 -t utf-8`)';
  throw new NerdrError(`the message ${from} cannot be typed in exactly: ${why}`, fix);
}

function rawArgv(): Buffer[] | null {
  try {
    const raw = readFileSync('/proc/self/cmdline');
    const parts: Buffer[] = [];
    let start = 0;
    for (let i = 0; i < raw.length; i++) {
      if (raw[i] === 0) {
        parts.push(raw.subarray(start, i));
        start = i + 1;
      }
    }
    return parts;
  } catch {
    return null;
  }
}

/** The words as the shell gave them: refuses one that is not UTF-8 (Node shows U+FFFD for it). */
export function checkWords(words: string[]): void {
  if (!words.some((w) => w.includes('\uFFFD'))) return;
  const raw = rawArgv();
  if (!raw) return;
  for (const w of words) {
    if (!w.includes('\uFFFD')) continue;
    // a U+FFFD the user typed is valid UTF-8 and goes through
    const bad = raw.find((b) => b.toString('utf8') === w && undeliverableBytes(b) !== null);
    if (bad) refuseUndeliverable(bad, `argument ${JSON.stringify(w)}`);
  }
}

function parseUntil(text: string | undefined): string[] | undefined {
  const until = text?.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of until ?? []) {
    if (!STATES.includes(s)) throw new NerdrError(`unknown state "${s}"`, `states: ${STATES.join(', ')}`);
  }
  return until;
}

function parseTimeout(text: string | undefined): number {
  if (text === undefined) return 0;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new NerdrError(`--timeout takes a positive number of seconds, not "${text}"`, 'e.g. --timeout 600', { code: 'invalid_option' });
  return Math.round(n * 1000);
}

/**
 * Prints a message's steps as they happen (`--wait`) until its turn ends in one of `until`, and
 * sets the exit status: 0 reached, 3 the agent went away first, 4 stalled, 124 timed out.
 */
async function followReceipt(cmd: Command, id: string, until: string[], timeoutMs: number, json: boolean | undefined): Promise<void> {
  const sock = await tmuxSocket(cmd);
  const socketFile = await ensureSupervisor(sock);
  const sub = await subscribe(socketFile, 'nerdr.receipt', { id, follow: true }, { timeoutMs: 10_000 }).catch((err: unknown) => {
    throw err instanceof SocketRequestError ? socketError(err) : err;
  });
  let shown = 0;
  const show = (r: Receipt): { exit: number; state: string | null; why: string } | null => {
    const steps = receiptSteps(r);
    for (const s of steps.slice(shown)) process.stdout.write((json ? JSON.stringify({ id, ...s }) : stepText(s)) + '\n');
    shown = steps.length;
    return receiptEnd(r, until);
  };
  let end = show((sub.result as { receipt: Receipt }).receipt);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    if (timeoutMs) timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const iterator = sub.events[Symbol.asyncIterator]();
  while (!end) {
    const next = await Promise.race([iterator.next(), timedOut]);
    if (next === 'timeout') {
      sub.close();
      const line = { id, step: 'timeout' as const, at: Date.now() };
      process.stdout.write((json ? JSON.stringify(line) : `timed out after ${timeoutMs / 1000} s; the message stays where it is`) + '\n');
      process.exitCode = SEND_EXIT.timeout;
      return;
    }
    if (next.done) break;
    const m = next.value as { event?: string; data?: Receipt };
    if (m.event === 'receipt' && m.data) end = show(m.data);
  }
  clearTimeout(timer);
  sub.close();
  if (!end) end = { exit: SEND_EXIT.gone, state: null, why: 'the supervisor stopped before the turn ended' };
  const last = { id, step: 'end' as const, exit: end.exit, state: end.state, why: end.why };
  process.stdout.write((json ? JSON.stringify(last) : end.why) + '\n');
  process.exitCode = end.exit;
}

export function register(program: Command): void {
  program
    .command('send [target] [message...]')
    .description('queue a message for an agent; it is typed in when the agent is idle or done, never into a dialog (no message, or "-": read it from stdin)')
    .option('--wait', 'follow it: typed in, the turn it started, how that turn ended (exit 0 reached, 3 agent gone, 4 stalled, 124 timeout)')
    .option('--until <states>', `with --wait: the states that end the turn (default done,idle,blocked; of ${STATES.join(', ')})`)
    .option('--timeout <seconds>', 'with --wait: give up after this many seconds (exit 124)')
    .option('--status <id>', "print a queued message's steps so far (its id: from send --json)")
    .option('--retry <id>', 'queue again a message that may have been typed in (its receipt says so), as a new message')
    .option('--cancel <id>', 'take a queued message out of its queue before it is typed in (`nerdr inbox` lists them)')
    .option('--edit <id>', 'give a queued message new text before it is typed in (the text: the words after --edit ID, or stdin)')
    .option('--json', 'print JSON (with --wait / --status: one object per step)')
    .action(async (target: string | undefined, words: string[], opts: { json?: boolean; wait?: boolean; until?: string; timeout?: string; status?: string; retry?: string; cancel?: string; edit?: string }, cmd: Command) => {
      if (opts.cancel) {
        if (target !== undefined) throw new NerdrError('--cancel takes only the message id', `nerdr send --cancel ${opts.cancel}`);
        const r = await call<{ target: string; id: string }>(cmd, 'nerdr.cancel', { id: opts.cancel, caller: callerSecret() });
        if (opts.json) return printJson(r);
        process.stdout.write(`message ${r.id} for ${r.target} cancelled: it will not be typed in\n`);
        return;
      }
      if (opts.edit) {
        // the words are the new text: `nerdr send --edit ID new text`, or stdin
        const given = target === undefined ? words : [target, ...words];
        let text = given.join(' ');
        if (given.length === 0 || (given.length === 1 && given[0] === '-')) {
          if (process.stdin.isTTY) throw new NerdrError('no new text given', `nerdr send --edit ${opts.edit} "new text", or pipe it`);
          const bytes = await readStdin();
          refuseUndeliverable(bytes, 'on stdin');
          text = bytes.toString('utf8').replace(/\n$/, '');
        } else checkWords(given);
        if (!text.trim()) throw new NerdrError('the new text is empty', `to drop the message: nerdr send --cancel ${opts.edit}`, { code: 'invalid_option' });
        const r = await call<{ target: string; id: string; position: number }>(cmd, 'nerdr.edit', { id: opts.edit, message: text, caller: callerSecret() });
        if (opts.json) return printJson(r);
        process.stdout.write(`message ${r.id} for ${r.target} edited; still #${r.position} in its queue\n`);
        return;
      }
      await remote('send', target);
      const until = parseUntil(opts.until) ?? ['done', 'idle', 'blocked'];
      const timeoutMs = parseTimeout(opts.timeout);
      if ((opts.until || opts.timeout) && !opts.wait) throw new NerdrError('--until and --timeout go with --wait', 'nerdr send <target> "text" --wait --until done --timeout 600');
      if (opts.status) {
        if (target !== undefined) throw new NerdrError('--status takes only the message id', `nerdr send --status ${opts.status}`);
        const r = await call<{ receipt: Receipt; window: string | null; name: string | null }>(cmd, 'nerdr.receipt', { id: opts.status });
        const steps: ReceiptStep[] = receiptSteps(r.receipt);
        if (opts.json) return printJson({ id: opts.status, window: r.window, name: r.name, steps, receipt: r.receipt });
        process.stdout.write(`message ${opts.status} for ${r.name ?? 'a window that is gone'}${r.window ? ` (${r.window})` : ''}\n`);
        for (const s of steps) process.stdout.write(stepText(s) + '\n');
        return;
      }
      if (opts.retry) {
        if (target !== undefined) throw new NerdrError('--retry takes only the message id: it goes to the window it was queued for', `nerdr send --retry ${opts.retry}`);
        const r = await call<{ target: string; id: string; position: number; state: string; exited: boolean; retried: string }>(cmd, 'nerdr.retry', { id: opts.retry, caller: callerSecret() });
        if (opts.wait) {
          if (!opts.json) process.stdout.write(`${r.retried} queued again for ${r.target} as ${r.id}\n`);
          return followReceipt(cmd, r.id, until, timeoutMs, opts.json);
        }
        if (opts.json) return printJson(r);
        process.stdout.write(`${r.retried} queued again for ${r.target} as ${r.id} (#${r.position})\n`);
        return;
      }
      if (target === undefined) throw new NerdrError('no target given', 'nerdr send <target> "text" (a window name, @id or %pane)');
      let text = words.join(' ');
      if (words.length === 0 || (words.length === 1 && words[0] === '-')) {
        if (process.stdin.isTTY) throw new NerdrError('no message given', 'nerdr send <target> "text", or pipe it: echo text | nerdr send <target>');
        const bytes = await readStdin();
        refuseUndeliverable(bytes, 'on stdin');
        text = bytes.toString('utf8').replace(/\n$/, '');
      } else checkWords(words);
      if (!text.trim()) throw new NerdrError('the message is empty', 'nerdr send <target> "text", or pipe it: echo text | nerdr send <target>', { code: 'invalid_option' });
      const size = Buffer.byteLength(text);
      if (size > MAX_MESSAGE_BYTES) {
        throw new NerdrError(`the message is ${size} bytes; at most ${MAX_MESSAGE_BYTES} are accepted`, 'send it in parts, or put it in a file and send its path');
      }
      // JSON escapes a control character in up to 6 bytes: the request line has its own limit
      const line = Buffer.byteLength(JSON.stringify({ id: 'cli:0000000:000', method: 'nerdr.send', params: { target, message: text, caller: callerSecret() } }));
      if (line > DEFAULT_MAX_LINE_BYTES) {
        throw new NerdrError(`the message holds so many control characters that its request is ${line} bytes, over the socket's ${DEFAULT_MAX_LINE_BYTES}`, 'send it in parts, or put it in a file and send its path');
      }
      let r: { target: string; id: string; position: number; state: string; exited: boolean; waking?: boolean; warning?: string; waitsFor?: string };
      r = await call(cmd, 'nerdr.send', { target, message: text, caller: callerSecret() });
      if (r.warning) process.stderr.write(`nerdr: warning: ${r.warning}\n`);
      if (opts.wait) {
        if (!opts.json) process.stdout.write(`queued for ${r.target} as ${r.id}\n`);
        return followReceipt(cmd, r.id, until, timeoutMs, opts.json);
      }
      if (opts.json) return printJson(r);
      const when = r.exited
        ? 'the agent has exited: it stays queued'
        : r.waking
          ? 'it was hibernated and wakes now: the message goes in once it is idle again'
        : r.state === 'idle' || r.state === 'done'
          ? 'delivering now'
          : r.waitsFor
            ? `it goes in once ${r.waitsFor} (now ${r.state === 'working' ? 'output flows' : r.state}; no manifest knows this program)`
            : `it goes in when the agent is idle (now ${r.state})`;
      process.stdout.write(`queued for ${r.target} as #${r.position}; ${when}\n`);
    });

  program
    .command('wait <target>')
    .description('block until the agent reaches one of the states (default: done, idle, blocked); exit 124 on timeout, 3 if the agent exits or is replaced')
    .option('--until <states>', `comma-separated: ${STATES.join(', ')}`)
    .option('--timeout <seconds>', 'give up after this many seconds')
    .option('--json', 'print JSON')
    .action(async (target: string, opts: { until?: string; timeout?: string; json?: boolean }, cmd: Command) => {
      await remote('wait', target);
      const until = parseUntil(opts.until);
      const timeoutMs = parseTimeout(opts.timeout);
      // its exit statuses (124, 3) follow from the reply's code: src/errors.ts CODES
      const r = await call<{ target: string; state: string }>(cmd, 'nerdr.wait', { target, until, timeoutMs }, { timeoutMs: 0 });
      if (opts.json) printJson(r);
      else process.stdout.write(`${r.target} ${r.state}\n`);
    });
}
