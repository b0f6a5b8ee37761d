// One place for errors the user sees: what failed, then what to do about it, under a code that
// decides the exit status. CODES is the one table of codes: the supervisor's socket error codes
// (docs/socket-protocol.md, "Error codes"), the socket client's own, and the CLI's. Every place
// that ends the CLI with a status other than 0 takes it from here (exitFor); the table is
// listed for users in docs/errors.md.

import type { SocketRequestError } from './supervisor/socket/client.js';

/** What a code means to the CLI: the exit status it ends with, and the fix shown when the error brings none of its own. */
export interface CodeEntry {
  exit: number;
  fix: string;
}

const SUPERVISOR_LOG = "the supervisor's log has the details (`nerdr supervisor status` names it)";
const HERDR_REPORT = 'see `nerdr pane help` and docs/socket-protocol.md for what a report may hold';
const TARGET_GONE = '`nerdr ls` shows what runs now; `nerdr explain NAME` says why it has its state';

export const CODES = {
  // ---- the CLI's own ----
  /** Any failure with no code of its own. */
  failed: { exit: 1, fix: 'run it again with NERDR_DEBUG=1 to see where it failed; `nerdr doctor` checks what nerdr needs' },
  /** An error nerdr did not expect: a bug. Its stack is printed only with NERDR_DEBUG=1. */
  internal: { exit: 1, fix: 'this is a bug in nerdr: run it again with NERDR_DEBUG=1 for the stack, and report it' },
  /** The command line cannot be used as given. */
  usage: { exit: 2, fix: 'see `nerdr help <command>`' },
  /** `nerdr supervisor status`: no supervisor runs (nothing failed: it starts on demand). */
  not_running: { exit: 3, fix: 'any nerdr command starts it; `nerdr supervisor start` does only that' },
  /** `nerdr send --wait`: typed in, and no response within 5 s; the queue is paused. */
  stalled: { exit: 4, fix: 'visit the window: the queue waits for you there (`nerdr focus NAME`)' },
  /** `nerdr events`: no supervisor answers (with --no-start, or none came back within 10 s). */
  no_supervisor: { exit: 5, fix: '`nerdr supervisor start` starts one, then run the command again' },
  /** `nerdr events --no-start`: no tmux server runs at the socket. */
  no_server: { exit: 6, fix: 'start tmux (`tmux new -s work`), or name the right server with -L / -S' },
  /** The supervisor did not start: the reason its start record or its log gave. */
  supervisor_failed: { exit: 1, fix: 'see its log; `nerdr supervise --foreground` shows it start (or fail) in this terminal' },
  /** `nerdr doctor`: a check failed. */
  checks_failed: { exit: 1, fix: 'each failed check above has its fix' },
  /** `nerdr restore`: some windows could not be brought back. */
  restore_failed: { exit: 1, fix: 'the failed windows are listed above, with why; `nerdr restore` again retries them' },
  /** `nerdr manifests check`: a file is invalid. */
  invalid_manifest: { exit: 1, fix: 'correct the file (docs/manifest-format.md), or remove it to fall back to the next source' },
  /** `nerdr search`: nothing matched. */
  no_match: { exit: 1, fix: 'try other words, or --all to search every log' },
  /** `nerdr selftest`: a light was wrong on an agent that was driven. */
  selftest_wrong: { exit: 1, fix: 'the report above names each wrong light; docs/selftest.md says what to send' },
  /** `nerdr selftest`: no agent could be driven (not installed, no prompt, not offline-capable). */
  cannot_drive: { exit: 2, fix: 'install the agent, or pick one that can be driven offline (docs/selftest.md)' },

  /** A command line option or argument nerdr cannot use (commander's own usage errors exit 1 too). */
  invalid_option: { exit: 1, fix: 'see `nerdr help <command>`' },
  /** tmux refused a command the CLI itself ran (switch-client, new-window, …): tmux's words follow. */
  tmux_command: { exit: 1, fix: '`nerdr doctor` checks tmux; tmux says why in the message' },
  /** git refused what nerdr asked of it (status, diff) in a checkout. */
  git_failed: { exit: 1, fix: 'run the same git command in that folder to see why; `nerdr doctor` checks git' },
  /** A file nerdr ships is missing. */
  broken_install: { exit: 1, fix: 'install nerdr again (npm install -g nerdr, or npm install in your clone)' },
  /** The supervisor refuses to serve: its socket's folder or path is unsafe or taken. */
  socket_unsafe: { exit: 1, fix: '`nerdr doctor` checks the state folder' },
  /** `nerdr web`: the port asked for is taken by another program. */
  port_in_use: { exit: 1, fix: 'choose another with --port (or `[web] port` in config.toml), or --port 0 for a free one' },
  /** `nerdr web`: the address asked for cannot be listened on (not this machine's, or not permitted). */
  listen_failed: { exit: 1, fix: 'name an address of this machine with --listen (or `[web] listen`); `ip -brief address` lists them' },

  // ---- the socket client's (no reply from the supervisor) ----
  server_not_running: { exit: 1, fix: '`nerdr supervisor start` starts it; `nerdr doctor` says what is missing' },
  no_answer: { exit: 1, fix: "the supervisor is busy or hung: `nerdr supervisor status`, and its log; `nerdr supervisor restart` if it stays so" },
  connection_closed: { exit: 1, fix: 'the supervisor may have stopped (`nerdr supervisor status`): run the command again' },
  connection_failed: { exit: 1, fix: '`nerdr doctor` checks the socket; `nerdr supervisor restart` makes a new one' },
  invalid_response: { exit: 1, fix: "something other than this nerdr's supervisor answers on its socket: `nerdr supervisor restart`" },
  unknown_error: { exit: 1, fix: SUPERVISOR_LOG },
  aborted: { exit: 1, fix: 'run the command again' },

  // ---- the supervisor's replies ----
  internal_error: { exit: 1, fix: `a bug in nerdr: ${SUPERVISOR_LOG}; please report it` },
  tmux_error: { exit: 1, fix: `tmux refused a command of the supervisor: ${SUPERVISOR_LOG}; \`nerdr doctor\` checks tmux and the supervisor` },
  invalid_request: { exit: 1, fix: 'the CLI and the supervisor may be of different versions: `nerdr supervisor restart`' },
  invalid_params: { exit: 1, fix: 'see `nerdr help <command>`; from a script: docs/socket-protocol.md' },
  timeout: { exit: 124, fix: 'give it longer with --timeout, or see what it does: `nerdr read NAME`' },
  overloaded: { exit: 1, fix: 'send it again in a moment' },
  not_ready: { exit: 1, fix: 'try again in a moment' },
  unknown_target: { exit: 1, fix: '`nerdr ls` lists the agents: name one by name, window id (@3) or pane id (%7)' },
  ambiguous_target: { exit: 1, fix: 'name it by its window id (`nerdr ls` shows them)' },
  agent_exited: { exit: 3, fix: TARGET_GONE },
  agent_replaced: { exit: 3, fix: TARGET_GONE },
  agent_gone: { exit: 3, fix: TARGET_GONE },
  not_permitted: { exit: 1, fix: 'an agent window may act only on the windows it started and theirs (docs/orchestration.md)' },
  too_large: { exit: 1, fix: 'send a shorter message, or write it to a file and send its path' },
  invalid_message: { exit: 1, fix: 'remove the NUL, lone surrogate or ESC [201~ at the offset given' },
  queue_write_failed: { exit: 1, fix: "free space or fix the permissions of nerdr's state folder (`nerdr doctor` checks it)" },
  state_unknowable: { exit: 1, fix: 'give the program a manifest (docs/manifest-format.md), or start it with --idle-after' },
  unknown_message: { exit: 1, fix: 'use the id `nerdr send` printed; receipts are kept for a day' },
  not_retryable: { exit: 1, fix: '`nerdr send --status ID` shows what became of it' },
  /** `nerdr answer`: the dialog on the agent's screen is no longer the one with that id. */
  prompt_changed: { exit: 7, fix: '`nerdr inbox` shows the prompt now; answer it by its new id' },
  /** `nerdr answer`: nerdr cannot type this agent's answer (no dialog read, or an agent it does not know). */
  not_answerable: { exit: 1, fix: 'answer it in its window (`nerdr focus NAME`); docs/inbox.md lists the agents nerdr answers' },
  /** `nerdr answer`: the choice is not one of the dialog's options. */
  invalid_choice: { exit: 1, fix: '`nerdr inbox ID` shows the options: approve, always, deny, or a number' },
  /** `nerdr inbox snooze`, `nerdr send --cancel`: no row or message with that id. */
  unknown_row: { exit: 1, fix: '`nerdr inbox` lists the ids' },
  /** `nerdr send --cancel/--edit`: the message is being typed in or was typed in already. */
  not_queued: { exit: 1, fix: '`nerdr send --status ID` shows what became of it' },
  /** `nerdr hibernate`: the agent works, waits, has something queued or running, or cannot resume (docs/lifecycle.md). */
  not_hibernatable: { exit: 1, fix: '`nerdr ls` shows its state; an idle agent, or one done and seen, with a known conversation and nothing queued hibernates' },
  /** `nerdr wake`: the window is not hibernated. */
  not_hibernated: { exit: 1, fix: '`nerdr ls` shows which windows are hibernated' },
  // herdr's report codes (pane.report_agent & co.)
  pane_not_found: { exit: 1, fix: "report from inside the agent's window: HERDR_PANE_ID / NERDR_TAB name it, and a restarted window has a new one" },
  unauthorized: { exit: 1, fix: "report from inside the agent's window: NERDR_TAB names it, and a restarted window has a new one" },
  invalid_agent: { exit: 1, fix: HERDR_REPORT },
  invalid_agent_session: { exit: 1, fix: HERDR_REPORT },
  invalid_metadata_source: { exit: 1, fix: HERDR_REPORT },
  invalid_metadata_token: { exit: 1, fix: HERDR_REPORT },
  invalid_metadata_ttl: { exit: 1, fix: HERDR_REPORT },
  invalid_state_label: { exit: 1, fix: HERDR_REPORT },
  invalid_metadata_request: { exit: 1, fix: HERDR_REPORT },
  metadata_token_limit: { exit: 1, fix: 'clear tokens first (--clear-token NAME): a pane holds at most 32' },
} as const satisfies Record<string, CodeEntry>;

export type ErrorCode = keyof typeof CODES;

function entry(code: string | undefined): CodeEntry {
  return (code !== undefined && Object.hasOwn(CODES, code) ? CODES[code as ErrorCode] : undefined) ?? CODES.failed;
}

/** The exit status of a code; a code the table does not know (a newer supervisor's) exits 1. */
export function exitFor(code: ErrorCode | (string & {})): number {
  return entry(code).exit;
}

/** The table's fix for a code; a code it does not know gets the generic one. */
export function fixFor(code: ErrorCode | (string & {})): string {
  return entry(code).fix;
}

export interface NerdrErrorOptions {
  /** The code (CODES): the supervisor's (`unknown_target`, `agent_exited`, …) or the CLI's own
   * (`no_answer`, `usage`). It chooses the exit status; default `failed`. */
  code?: ErrorCode | (string & {});
  /** An exit status that is not the code's: another program's, passed on (ssh, tmux attach). */
  exitCode?: number;
}

export class NerdrError extends Error {
  readonly code: string;
  /** The fix this error brings; `fixText` falls back to the code's. */
  readonly fix: string | undefined;
  private readonly explicitExit: number | undefined;

  constructor(message: string, fix?: string, opts: NerdrErrorOptions = {}) {
    super(message);
    this.name = 'NerdrError';
    this.fix = fix || undefined;
    this.code = opts.code ?? 'failed';
    this.explicitExit = opts.exitCode;
  }

  /** The status the CLI exits with. */
  get exitCode(): number {
    return this.explicitExit ?? exitFor(this.code);
  }

  /** What to do about it: the error's own fix, else its code's. */
  get fixText(): string {
    return this.fix ?? fixFor(this.code);
  }

  /** The text printed on stderr. */
  render(): string {
    return `nerdr: ${this.message}\n  fix: ${this.fixText}`;
  }
}

/**
 * The supervisor's error reply as the CLI shows it, its code kept. `fix` is the reply's own field;
 * a supervisor from before it (still running after an upgrade) put it in the message, after
 * "; fix: ", which is split off then.
 */
export function fromServerError(code: string, message: string, fix?: string): NerdrError {
  if (fix) return new NerdrError(message, fix, { code });
  const i = message.indexOf('; fix: ');
  return i < 0 ? new NerdrError(message, undefined, { code }) : new NerdrError(message.slice(0, i), message.slice(i + '; fix: '.length), { code });
}

/**
 * A failed request as the CLI reports it, its code kept: the supervisor's own code when it
 * replied; otherwise the client's (`no_answer` for a request it gave up on, so it is never taken
 * for the supervisor's `timeout` of `nerdr wait`).
 */
export function socketError(err: SocketRequestError): NerdrError {
  if (err.response !== undefined) return fromServerError(err.code, err.message, err.fix);
  return new NerdrError(err.message, undefined, { code: err.code === 'timeout' ? 'no_answer' : err.code });
}

/** A tmux command the supervisor sent was refused: the error names the command. A socket method it fails answers `tmux_error`. */
export class TmuxCommandError extends Error {
  readonly code = 'tmux_error';
  constructor(
    /** The command's first word (`new-window`, `respawn-pane`, …). */
    readonly command: string,
    /** tmux's own words. */
    readonly tmuxText: string,
  ) {
    super(`tmux ${command} failed: ${tmuxText || 'no reason given'}`);
    this.name = 'TmuxCommandError';
  }
}

/**
 * What the CLI prints for an error that reached its top level, and the status it exits with. A
 * NerdrError prints its message and fix; anything else is a bug: one line, and the stack only
 * with `debug` (NERDR_DEBUG=1).
 */
export function report(err: unknown, debug: boolean): { text: string; exit: number } {
  const e = err instanceof NerdrError ? err : new NerdrError(`internal error: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`, undefined, { code: 'internal' });
  const stack = debug && err instanceof Error && err.stack ? `\n${err.stack}` : '';
  return { text: e.render() + stack + '\n', exit: e.exitCode };
}
