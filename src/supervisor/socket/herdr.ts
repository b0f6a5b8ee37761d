// herdr's report methods (docs/socket-protocol.md, "herdr's reports"): parse and validate params exactly as
// herdr does. Failures herdr's serde layer would raise reject the whole line (`invalid_request`,
// id ""); semantic failures (`invalid_agent`) echo the id. Session references that herdr would
// drop are dropped; conversation ids that look like flags are refused (nerdr's own rule).

import { RpcError, invalidRequest } from './errors.js';
import { parseU64, rawValueAt } from './exact-json.js';
import { hasControlChars, stripControl } from './sanitize.js';

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
  /** report_metadata only: the display overlay, validated and normalised as herdr does. */
  metadata?: MetadataFields;
}

/** `pane.report_metadata`'s fields (docs/socket-protocol.md, `pane.report_metadata`): display only, never the state. */
export interface MetadataFields {
  /** Canonical label: the metadata shows only while this agent is the window's. */
  agent?: string;
  /** The metadata shows only while this source's report is the window's authority. */
  appliesToSource?: string;
  /** Trimmed, no control characters, at most 80 characters; absent when empty. */
  title?: string;
  displayAgent?: string;
  /** Per public state (idle, working, blocked, done, unknown), the text to show with it. */
  stateLabels: Record<string, string>;
  /** name → value; null clears that token. */
  tokens: Record<string, string | null>;
  clearTitle: boolean;
  clearDisplayAgent: boolean;
  clearStateLabels: boolean;
  /** 1 … 86 400 000: the set fields vanish after this long. */
  ttlMs?: number;
}

const METADATA_TTL_MAX_MS = 86_400_000;
const METADATA_TOKENS_PER_REPORT = 16;
const LABEL_STATES: readonly string[] = ['idle', 'working', 'blocked', 'done', 'unknown'];

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
    const seq = optSeq(params, rawLine);
    const { source, fields } = parseMetadata(params, rawLine);
    return { kind: 'report_metadata', paneId, source, agent: fields.agent ?? '', ...(seq !== undefined ? { seq } : {}), metadata: fields };
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

// ---- pane.report_metadata (herdr's normalisation, src/app/api/panes.rs) ----

function metadataSource(raw: string): string {
  const v = raw.trim();
  if (!/^[A-Za-z0-9:._-]{1,80}$/.test(v)) {
    throw new RpcError('invalid_metadata_source', 'metadata source must be 1-80 ASCII letters, digits, ":", ".", "_" or "-"');
  }
  return v;
}

/** Trimmed, control characters removed, at most 80 characters; undefined when nothing is left. */
export function presentationText(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  // eslint-disable-next-line no-control-regex
  const v = [...raw.trim().replace(/[\u0000-\u001f\u007f-\u009f]/g, '')].slice(0, 80).join('').trim();
  return v === '' ? undefined : v;
}

function optBool(p: Params, key: string): boolean {
  const v = p[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw invalidRequest(`invalid type for \`${key}\`: expected a boolean`);
  return v;
}

function stringMap(p: Params, key: string, nullable: boolean): Record<string, string | null> {
  const v = p[key];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidRequest(`invalid type for \`${key}\`: expected an object`);
  const out: Record<string, string | null> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (typeof x === 'string' || (nullable && x === null)) Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else throw invalidRequest(`invalid type for \`${key}.${k}\`: expected a string${nullable ? ' or null' : ''}`);
  }
  return out;
}

/** Reads the metadata fields with herdr's checks, in herdr's order: types, then each field. */
function parseMetadata(p: Params, rawLine: string): { source: string; fields: MetadataFields } {
  // serde first: types (invalid_request)
  const rawSource = reqString(p, 'source');
  const rawTitle = optString(p, 'title');
  const rawDisplay = optString(p, 'display_agent');
  const rawApplies = optString(p, 'applies_to_source');
  const rawAgent = optString(p, 'agent');
  const rawLabels = stringMap(p, 'state_labels', false) as Record<string, string>;
  const rawTokens = stringMap(p, 'tokens', true);
  const clearTitle = optBool(p, 'clear_title');
  const clearDisplayAgent = optBool(p, 'clear_display_agent');
  const clearStateLabels = optBool(p, 'clear_state_labels');
  let ttl: bigint | undefined;
  if (p.ttl_ms !== undefined && p.ttl_ms !== null) {
    const raw = rawValueAt(rawLine, ['params', 'ttl_ms']);
    const v = raw === undefined ? undefined : parseU64(raw.trim());
    if (v === undefined) throw invalidRequest('invalid value for `ttl_ms`: expected an unsigned 64-bit integer');
    ttl = v ?? undefined;
  }

  const fields: MetadataFields = { stateLabels: {}, tokens: {}, clearTitle, clearDisplayAgent, clearStateLabels };
  if (rawAgent !== undefined) {
    const agent = canonicalAgent(stripControl(rawAgent));
    if (agent === '') throw new RpcError('invalid_agent', 'agent label must not be empty');
    fields.agent = agent;
  }
  const source = metadataSource(rawSource);
  const tokenKeys = Object.keys(rawTokens);
  if (tokenKeys.length > METADATA_TOKENS_PER_REPORT) {
    throw new RpcError('invalid_metadata_token', `a metadata report may update at most ${METADATA_TOKENS_PER_REPORT} tokens`);
  }
  for (const k of tokenKeys) {
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(k)) throw new RpcError('invalid_metadata_token', `invalid metadata token key: ${stripControl(k)}`);
    Object.defineProperty(fields.tokens, k, { value: presentationText(rawTokens[k] ?? undefined) ?? null, enumerable: true, writable: true, configurable: true });
  }
  if (ttl !== undefined) {
    if (ttl < 1n) throw new RpcError('invalid_metadata_ttl', 'metadata ttl_ms must be at least 1');
    if (ttl > BigInt(METADATA_TTL_MAX_MS)) throw new RpcError('invalid_metadata_ttl', `metadata ttl_ms must be ${METADATA_TTL_MAX_MS} or less`);
    fields.ttlMs = Number(ttl);
  }
  const title = presentationText(rawTitle);
  if (title !== undefined) fields.title = title;
  const display = presentationText(rawDisplay);
  if (display !== undefined) fields.displayAgent = display;
  if (rawApplies !== undefined) fields.appliesToSource = metadataSource(rawApplies);
  for (const [k, v] of Object.entries(rawLabels)) {
    const state = k.trim().toLowerCase();
    if (!LABEL_STATES.includes(state)) throw new RpcError('invalid_state_label', `unknown state label: ${stripControl(state)}`);
    const text = presentationText(v);
    if (text !== undefined) fields.stateLabels[state] = text;
  }
  if ((rawTitle !== undefined && clearTitle) || (rawDisplay !== undefined && clearDisplayAgent) || (Object.keys(rawLabels).length > 0 && clearStateLabels)) {
    throw new RpcError('invalid_metadata_request', 'cannot set and clear the same metadata field');
  }
  if (title === undefined && display === undefined && Object.keys(fields.stateLabels).length === 0 && tokenKeys.length === 0 && !clearTitle && !clearDisplayAgent && !clearStateLabels) {
    throw new RpcError('invalid_metadata_request', 'missing metadata field to set or clear');
  }
  return { source, fields };
}
