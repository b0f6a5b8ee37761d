// Errors a socket handler can raise, and the codes herdr's clients know (docs/socket-protocol.md, "Error codes").

/** An error reply: `{"id", "error": {"code", "message"}}`. Throw it from a handler to choose the code. */
export class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** Reply with `id: ""` (herdr does so when the line could not be parsed as a request). */
    readonly anonymous = false,
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
export class SocketSetupError extends Error {
  constructor(
    message: string,
    /** What the user can do about it. */
    readonly fix?: string,
  ) {
    super(message);
    this.name = 'SocketSetupError';
  }
}
