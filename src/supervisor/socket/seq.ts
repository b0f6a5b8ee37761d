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
