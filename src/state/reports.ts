// herdr report semantics (docs/state-rules.md): source classes, agent labels, u64 seq. Each agent
// nerdr starts states its rules in its integration (`herdr`); herdr's other agents are here.

import { INTEGRATIONS, isAgentId, type HerdrReports, type HerdrRules } from '../integrations/index.js';
import { canonicalAgent } from '../labels.js';

export { KNOWN_AGENTS, canonicalAgent } from '../labels.js';

export type SourceClass = HerdrReports | 'custom';

/** herdr's rules for its agents that nerdr does not start. */
const HERDR_ONLY_RULES: Readonly<Record<string, HerdrRules>> = {
  mastracode: { source: 'herdr:mastracode', reports: 'full-lifecycle', newSessionOn: ['startup'], conversation: 'id', unsequencedSelect: false },
  kimi: { source: 'herdr:kimi', reports: 'full-lifecycle', newSessionOn: null, conversation: 'id', unsequencedSelect: false },
  devin: { source: 'herdr:devin', reports: 'reserved', newSessionOn: null, conversation: 'id', unsequencedSelect: false },
  qodercli: { source: 'herdr:qodercli', reports: 'reserved', newSessionOn: null, conversation: 'id', unsequencedSelect: false },
  hermes: { source: 'herdr:hermes', reports: 'session-only', newSessionOn: ['startup', 'new', 'resume'], conversation: 'id', unsequencedSelect: false },
};

/** herdr's rules for the agent of a canonical label; null when herdr has no source for it. */
export function herdrRules(label: string): HerdrRules | null {
  if (isAgentId(label)) return INTEGRATIONS[label].herdr;
  return HERDR_ONLY_RULES[label] ?? null;
}

/** How herdr treats a report from `source` about `agent`. */
export function classifySource(source: string, agent: string): SourceClass {
  const rules = herdrRules(canonicalAgent(agent));
  return rules !== null && rules.source === source ? rules.reports : 'custom';
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

export const START_SOURCES = new Set(['startup', 'resume', 'clear', 'compact', 'branch', 'new', 'fork', 'select']);

export function mayReplaceSession(agent: string, startSource: string | undefined): boolean {
  const r = herdrRules(canonicalAgent(agent))?.newSessionOn ?? null;
  if (r === 'always') return true;
  if (r === null || startSource === undefined) return false;
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
