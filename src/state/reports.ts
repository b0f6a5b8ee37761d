// herdr report semantics (docs/state-rules.md): source classes, agent labels, u64 seq.

export type SourceClass = 'full-lifecycle' | 'reserved' | 'session-only' | 'custom';

const FULL_LIFECYCLE: Record<string, string> = {
  'herdr:pi': 'pi', 'herdr:omp': 'omp', 'herdr:mastracode': 'mastracode',
  'herdr:opencode': 'opencode', 'herdr:kilo': 'kilo', 'herdr:kimi': 'kimi',
};
const RESERVED: Record<string, string> = {
  'herdr:claude': 'claude', 'herdr:codex': 'codex', 'herdr:copilot': 'copilot', 'herdr:devin': 'devin',
  'herdr:droid': 'droid', 'herdr:qodercli': 'qodercli', 'herdr:qwen': 'qwen', 'herdr:cursor': 'cursor', 'herdr:grok': 'grok',
};
const SESSION_ONLY: Record<string, string> = { 'herdr:hermes': 'hermes', 'herdr:antigravity_cli': 'agy' };

export { KNOWN_AGENTS, canonicalAgent } from '../labels.js';
import { canonicalAgent } from '../labels.js';

/** How herdr treats a report from `source` about `agent`. */
export function classifySource(source: string, agent: string): SourceClass {
  const a = canonicalAgent(agent);
  if (FULL_LIFECYCLE[source] === a) return 'full-lifecycle';
  if (RESERVED[source] === a) return 'reserved';
  if (SESSION_ONLY[source] === a) return 'session-only';
  return 'custom';
}

export const U64_MAX = (1n << 64n) - 1n;

/**
 * Parse a u64 sequence number exactly. Accepts bigint, a decimal string, or a JS number that is a
 * safe integer (larger numbers have already lost precision: the socket layer must hand them over
 * as strings or bigint). Returns undefined for anything out of range or malformed.
 */
export function parseSeq(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v >= 0n && v <= U64_MAX ? v : undefined;
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : undefined;
  if (typeof v === 'string' && /^\s*\d{1,20}\s*$/.test(v)) {
    const b = BigInt(v.trim());
    return b <= U64_MAX ? b : undefined;
  }
  return undefined;
}

/**
 * Per-source sequence bookkeeping, shared by report_agent, report_agent_session and release_agent.
 * With a seq: accepted only if strictly greater than the last accepted one. Without: accepted only while
 * the source has never sent a sequenced report.
 */
export class SeqBook {
  private last = new Map<string, bigint>();

  /** True (and records it) when the report is fresh. `seq` undefined = the report carried none. */
  accept(source: string, seq: bigint | undefined): boolean {
    const prev = this.last.get(source);
    if (seq === undefined) return prev === undefined;
    if (prev !== undefined && seq <= prev) return false;
    this.last.set(source, seq);
    return true;
  }

  /** Would `accept` say yes? (no side effect) */
  isFresh(source: string, seq: bigint | undefined): boolean {
    const prev = this.last.get(source);
    if (seq === undefined) return prev === undefined;
    return prev === undefined || seq > prev;
  }

  clear(source?: string): void {
    if (source === undefined) this.last.clear();
    else this.last.delete(source);
  }
}

/** Start sources that may replace a stored session id for the same owner. 'always' = any. */
const REPLACE_ON: Record<string, readonly string[] | 'always'> = {
  claude: ['clear', 'resume', 'compact'],
  codex: ['startup', 'clear', 'resume', 'compact'],
  mastracode: ['startup'],
  hermes: ['startup', 'new', 'resume'],
  opencode: ['select'],
  pi: ['new', 'resume', 'fork'],
  omp: ['startup', 'new', 'resume', 'fork'],
  qwen: ['startup', 'clear', 'resume', 'compact', 'branch'],
  agy: 'always',
};

export const START_SOURCES = new Set(['startup', 'resume', 'clear', 'compact', 'branch', 'new', 'fork', 'select']);

export function mayReplaceSession(agent: string, startSource: string | undefined): boolean {
  const r = REPLACE_ON[canonicalAgent(agent)];
  if (r === 'always') return true;
  if (r === undefined || startSource === undefined) return false;
  return r.includes(startSource);
}

/** A session id herdr would accept: non-empty, ≤ 512 bytes, no control characters; nerdr also rejects flag-like ids. */
export function validSessionId(id: unknown): id is string {
  if (typeof id !== 'string') return false;
  const t = id.trim();
  // eslint-disable-next-line no-control-regex
  return t !== '' && !t.startsWith('-') && Buffer.byteLength(t) <= 512 && !/[\u0000-\u001f\u007f]/.test(t);
}

/** A session file path herdr would accept (pi, omp): non-empty, ≤ 4096 bytes, no control characters, absolute. */
export function validSessionPath(p: unknown): p is string {
  // eslint-disable-next-line no-control-regex
  return typeof p === 'string' && p.startsWith('/') && Buffer.byteLength(p) <= 4096 && !/[\u0000-\u001f\u007f-\u009f]/.test(p);
}
