// herdr's reports, once the socket has checked their shape and secret, as arbiter inputs (which
// judges their seq). One function,
// pure, so what herdr's scripts send can be followed from the socket to the state in a test.

import type { Arbiter, ArbiterUpdate } from '../state/index.js';
import type { ParsedReport } from './socket/herdr.js';
import { RpcError } from './socket/errors.js';

export type HerdrReport = Omit<ParsedReport, 'paneId'>;

/** Feeds one report to the window's arbiter; null for a method it has no use for. */
export function applyHerdrReport(arbiter: Arbiter, r: HerdrReport): ArbiterUpdate | null {
  const seq = r.seq === undefined ? undefined : r.seq.toString();
  const base = { source: r.source, agent: r.agent, ...(seq === undefined ? {} : { seq }) };
  const session = {
    ...(r.agentSessionId !== undefined ? { agentSessionId: r.agentSessionId } : {}),
    ...(r.agentSessionPath !== undefined ? { agentSessionPath: r.agentSessionPath } : {}),
  };
  switch (r.kind) {
    case 'report_agent':
      return arbiter.report({ ...base, ...session, state: r.state ?? 'unknown', ...(r.message ? { message: r.message } : {}) });
    case 'report_agent_session':
      return arbiter.reportSession({ ...base, ...session, ...(r.sessionStartSource ? { sessionStartSource: r.sessionStartSource } : {}) });
    case 'release_agent':
      return arbiter.release(base);
    case 'report_metadata':
      return r.metadata ? arbiter.metadata({ source: r.source, ...r.metadata, ...(seq === undefined ? {} : { seq }) }) : null;
    default:
      return null;
  }
}

const MESSAGES: Record<string, string> = {
  metadata_token_limit: 'pane metadata may contain at most 32 tokens',
};

/** The error herdr would answer for this update (the report changed nothing), or null. */
export function reportError(u: ArbiterUpdate | null): RpcError | null {
  return u?.error ? new RpcError(u.error, MESSAGES[u.error] ?? u.error) : null;
}
