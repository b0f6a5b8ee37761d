// Public surface of the socket: the server the supervisor runs and the client the CLI uses.
export {
  createSocketServer,
  HERDR_PROTOCOL,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_CONNECTIONS,
  type Handler,
  type HookReport,
  type Report,
  type RequestContext,
  type SocketServer,
  type SocketServerOptions,
  type StreamHandle,
  type Timers,
} from './server.js';
export { RpcError, SocketSetupError } from './errors.js';
export { canonicalAgent, looksLikeFlag, type ParsedReport, type ReportedState, type SessionStartSource } from './herdr.js';
export { request, subscribe, SocketRequestError, type RequestOptions, type Subscription } from './client.js';
