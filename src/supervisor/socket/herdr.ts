// herdr's report methods (integration-protocol §2.2–2.4): parse and validate params exactly as
// herdr does. Failures herdr's serde layer would raise reject the whole line (`invalid_request`,
// id ""); semantic failures (`invalid_agent`) echo the id. Session references that herdr would
// drop are dropped; conversation ids that look like flags are refused (nerdr's own rule).

import { RpcError, invalidRequest } from './errors.js';
import { parseU64, rawValueAt } from './exact-json.js';
import { hasControlChars, sanitize, stripControl } from './sanitize.js';

export const HERDR_REPORT_METHODS = [
  'pane.report_agent',
  'pane.report_agent_session',
  'pane.release_agent',
  'pane.clear_agent_authority',
  'pane.report_metadata',
] as const;
export type HerdrReportMethod = (typeof HERDR_REPORT_METHODS)[number];

export function isHerdrReportMethod(m: string): m is HerdrReportMethod {
  return (HERDR_REPORT_METHODS as readonly string[]).includes(m);
}

export type ReportedState = 'idle' | 'working' | 'blocked' | 'unknown';
const STATES: readonly string[] = ['idle', 'working', 'blocked', 'unknown'];

export const SESSION_START_SOURCES = ['startup', 'resume', 'clear', 'compact', 'branch', 'new', 'fork', 'select'] as const;
export type SessionStartSource = (typeof SESSION_START_SOURCES)[number];

/** A validated herdr report, before authentication. `paneId` is the secret the client sent. */
export interface ParsedReport {
  kind: 'report_agent' | 'report_agent_session' | 'release_agent' | 'clear_agent_authority' | 'report_metadata';
  paneId: string;
  /** Untrimmed, possibly empty (herdr does not validate it over the socket). */
  source: string;
  /** Canonical agent label; '' only for clear_agent_authority / report_metadata. */
  agent: string;
  state?: ReportedState;
  message?: string;
  seq?: bigint;
  agentSessionId?: string;
  agentSessionPath?: string;
  sessionStartSource?: SessionStartSource;
  /** report_metadata only: the remaining params, cleaned, for whoever honours them. */
  metadata?: Record<string, unknown>;
}

export { canonicalAgent } from '../../labels.js';
import { canonicalAgent } from '../../labels.js';

/** True for ids that a shell or CLI could mistake for an option. */
export function looksLikeFlag(id: string): boolean {
  return id.trimStart().startsWith('-');
}

type Params = Record<string, unknown>;

function reqString(p: Params, key: string): string {
  const v = p[key];
  if (v === undefined) throw invalidRequest(`missing field \`${key}\``);
  if (typeof v !== 'string') throw invalidRequest(`invalid type for \`${key}\`: expected a string`);
  return v;
}

function optString(p: Params, key: string): string | undefined {
  const v = p[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidRequest(`invalid type for \`${key}\`: expected a string`);
  return v;
}

function optSeq(p: Params, rawLine: string): bigint | undefined {
  if (p.seq === undefined) return undefined;
  const raw = rawValueAt(rawLine, ['params', 'seq']);
  const v = raw === undefined ? undefined : parseU64(raw.trim());
  if (v === undefined) throw invalidRequest('invalid value for `seq`: expected an unsigned 64-bit integer');
  return v ?? undefined;
}

/** herdr's session id rule: non-empty, ≤ 512 bytes, no control characters (else dropped). */
function sessionId(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.length === 0 || Buffer.byteLength(raw) > 512 || hasControlChars(raw)) return undefined;
  if (looksLikeFlag(raw)) throw new RpcError('invalid_agent_session', 'agent_session_id must not start with "-"');
  return raw;
}

/** herdr's session path rule: non-empty, ≤ 4096 bytes, no control characters, absolute. */
function sessionPath(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.length === 0 || Buffer.byteLength(raw) > 4096 || hasControlChars(raw) || !raw.startsWith('/')) return undefined;
  return raw;
}

function agentLabel(p: Params): string {
  const agent = canonicalAgent(stripControl(reqString(p, 'agent')));
  if (agent === '') throw new RpcError('invalid_agent', 'agent label must not be empty');
  return agent;
}

/**
 * Validates the params of a herdr report method. `params` is the raw (unsanitised) object from
 * JSON.parse and `rawLine` the request text, for the exact `seq`.
 */
export function parseHerdrReport(method: HerdrReportMethod, params: Params, rawLine: string): ParsedReport {
  const paneId = reqString(params, 'pane_id');
  if (method === 'pane.clear_agent_authority') {
    const source = optString(params, 'source');
    return {
      kind: 'clear_agent_authority',
      paneId,
      source: source === undefined ? '' : stripControl(source),
      agent: '',
      ...(params.seq !== undefined && params.seq !== null ? { seq: optSeq(params, rawLine)! } : {}),
    };
  }
  if (method === 'pane.report_metadata') {
    const source = reqString(params, 'source').trim();
    if (!/^[A-Za-z0-9:._-]{1,80}$/.test(source)) {
      throw new RpcError('invalid_metadata_source', 'metadata source must be 1-80 ASCII letters, digits, ":", ".", "_" or "-"');
    }
    const seq = optSeq(params, rawLine);
    const { pane_id: _p, source: _s, seq: _q, ...rest } = params;
    return { kind: 'report_metadata', paneId, source, agent: '', ...(seq !== undefined ? { seq } : {}), metadata: sanitize(rest) as Record<string, unknown> };
  }

  const source = stripControl(reqString(params, 'source'));
  const agent = agentLabel(params);
  const seq = optSeq(params, rawLine);
  const base: ParsedReport = {
    kind: method === 'pane.report_agent' ? 'report_agent' : method === 'pane.report_agent_session' ? 'report_agent_session' : 'release_agent',
    paneId,
    source,
    agent,
    ...(seq !== undefined ? { seq } : {}),
  };
  if (method === 'pane.release_agent') return base;

  if (method === 'pane.report_agent') {
    const state = reqString(params, 'state');
    if (!STATES.includes(state)) {
      throw invalidRequest(`unknown variant \`${state}\`, expected one of \`idle\`, \`working\`, \`blocked\`, \`unknown\``);
    }
    base.state = state as ReportedState;
    const message = optString(params, 'message');
    if (message !== undefined) base.message = stripControl(message);
  }
  const id = sessionId(optString(params, 'agent_session_id'));
  if (id !== undefined) base.agentSessionId = id;
  const path = sessionPath(optString(params, 'agent_session_path'));
  if (path !== undefined) base.agentSessionPath = path;
  if (method === 'pane.report_agent_session') {
    const start = optString(params, 'session_start_source')?.trim();
    if (start !== undefined && (SESSION_START_SOURCES as readonly string[]).includes(start)) {
      base.sessionStartSource = start as SessionStartSource;
    }
  }
  return base;
}
