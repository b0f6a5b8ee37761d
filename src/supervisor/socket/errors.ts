// Errors a socket handler can raise, and the codes herdr's clients know (docs/socket-protocol.md, "Error codes").

import { fixFor, NerdrError, TmuxCommandError } from '../../errors.js';

/**
 * An error reply: `{"id", "error": {"code", "message", "fix"?}}`. Throw it from a handler to
 * choose the code; `fix` says what the user can do (herdr's clients ignore it). The CLI shows
 * the code's fix from src/errors.ts CODES when the reply has none.
 */
export class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** Reply with `id: ""` (herdr does so when the line could not be parsed as a request). */
    readonly anonymous = false,
    readonly fix?: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** A request line herdr's serde layer would have refused as a whole: reply `id: ""`, `invalid_request`. */
export function invalidRequest(detail: string): RpcError {
  return new RpcError('invalid_request', `invalid request: ${detail}`, true);
}

/** The socket's folder or path is unsafe or taken; the supervisor must not serve. */
export class SocketSetupError extends NerdrError {
  constructor(message: string, fix?: string) {
    super(message, fix, { code: 'socket_unsafe' });
    this.name = 'SocketSetupError';
  }
}

/** The reply for an error a handler threw: its own code, tmux's refusal as `tmux_error`, anything else `internal_error` (with the fix to read the log). */
export function asRpcError(e: unknown): RpcError {
  if (e instanceof RpcError) return e;
  if (e instanceof TmuxCommandError) return new RpcError(e.code, e.message, false, fixFor(e.code));
  return new RpcError('internal_error', e instanceof Error ? e.message : String(e), false, fixFor('internal_error'));
}
