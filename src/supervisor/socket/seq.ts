// herdr's ordering rule (integration-protocol §2.5), per pane and per source:
// - with seq: accepted only if strictly greater than the last accepted seq, which it replaces;
// - without seq: accepted only while this source has never sent a sequenced report here.
// Stale reports are still answered `ok`; they just change nothing.

export class SeqTracker {
  /** pane key → source → last accepted seq. */
  private readonly last = new Map<string, Map<string, bigint>>();

  /** Checks a report and, when fresh, records it. Returns whether it should be applied. */
  accept(paneKey: string, source: string, seq: bigint | undefined): boolean {
    let bySource = this.last.get(paneKey);
    const prev = bySource?.get(source);
    if (seq === undefined) return prev === undefined;
    if (prev !== undefined && seq <= prev) return false;
    if (!bySource) {
      bySource = new Map();
      this.last.set(paneKey, bySource);
    }
    bySource.set(source, seq);
    return true;
  }

  /** Forgets one source (herdr does so on agent exit / re-anchoring) or a whole pane. */
  forget(paneKey: string, source?: string): void {
    if (source === undefined) this.last.delete(paneKey);
    else this.last.get(paneKey)?.delete(source);
  }

  lastSeq(paneKey: string, source: string): bigint | undefined {
    return this.last.get(paneKey)?.get(source);
  }
}

/** What admit() needs of a parsed report. */
export interface Sequenced {
  kind: string;
  source: string;
  agent: string;
  seq?: bigint | undefined;
  sessionStartSource?: string | undefined;
}

/**
 * Whether a report gets through by herdr's ordering rules, recording it when it does:
 * - report_metadata has counters of its own per source, and an unsequenced one is always fresh
 *   (herdr's metadata_tokens.rs);
 * - opencode's TUI plugin reports the conversation the user selects (`session_start_source:
 *   "select"`) without a seq, after the server plugin's sequenced reports: herdr takes it;
 * - everything else: accept() above.
 */
export function admit(tracker: SeqTracker, paneKey: string, r: Sequenced): boolean {
  if (r.kind === 'report_metadata') return r.seq === undefined || tracker.accept(paneKey, `metadata\u0000${r.source}`, r.seq);
  if (r.kind === 'report_agent_session' && r.source === 'herdr:opencode' && r.agent === 'opencode' && r.sessionStartSource === 'select' && r.seq === undefined) return true;
  return tracker.accept(paneKey, r.source, r.seq);
}
