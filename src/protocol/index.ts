// nerdr's socket protocol as its clients and its server share it: the wire types and what each
// of nerdr's own methods takes. The framing, herdr's methods and the errors are
// docs/socket-protocol.md; the server is src/supervisor/socket/, the methods
// src/supervisor/methods/. Clients import from here, never from the supervisor.

/** The version of nerdr's own methods (docs/socket-protocol.md); herdr's is HERDR_PROTOCOL (20). */
export const PROTOCOL_VERSION = 1;

export type { AgentRow } from './rows.js';
export {
  AGENT_STATES,
  ANSWER_KINDS,
  CONTROL_ACTIONS,
  checkParams,
  isMethodName,
  methodParams,
  paramsSignature,
  type MethodName,
  type Params,
  type ParamsCheck,
} from './params.js';
export type { AnswerChoice, AnswerResult, Dialog, DialogOption, InboxKind, InboxRow, OptionKind } from './inbox.js';
