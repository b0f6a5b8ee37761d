// herdr's `pane.report_metadata` display overlay (docs/socket-protocol.md; herdr's
// src/terminal/metadata.rs and metadata_tokens.rs): a title, a display name for the agent, a
// text per state, and tokens, per reporting source. Display only: it never changes the state.
// Pure, with the clock passed in; the arbiter owns one and asks it for its next expiry.
//
// - A report that clears something patches the source's entry; one that only sets replaces it.
// - An entry shows only while its guards hold: `agent` (the window's agent label is that one)
//   and `appliesToSource` (that source's report is the window's authority now).
// - With a ttl the entry's fields vanish that long after the report; tokens likewise.
// - The newest title and display name win; state labels merge, newest per state winning.

export interface MetadataReport {
  source: string;
  agent?: string;
  appliesToSource?: string;
  title?: string;
  displayAgent?: string;
  stateLabels?: Record<string, string>;
  /** name → value; null clears it. */
  tokens?: Record<string, string | null>;
  clearTitle?: boolean;
  clearDisplayAgent?: boolean;
  clearStateLabels?: boolean;
  ttlMs?: number;
}

export interface PresentationView {
  title: string | null;
  displayAgent: string | null;
  /** state → text. */
  stateLabels: Record<string, string>;
  tokens: Record<string, string>;
}

export interface PresentationGuards {
  /** The window's effective agent label. */
  agent: string;
  /** The source of the report that is the window's authority now, if any. */
  authority: string | null;
}

/** herdr's limit of tokens per pane. */
export const MAX_TOKENS = 32;

interface Entry {
  source: string;
  agent: string | null;
  appliesTo: string | null;
  title: { text: string; at: number } | null;
  display: { text: string; at: number } | null;
  labels: Map<string, { text: string; at: number }>;
  at: number;
  ttl: number | null;
}

export class Presentation {
  private readonly entries = new Map<string, Entry>();
  private readonly tokens = new Map<string, { value: string; expires: number | null }>();
  private order = 0;

  /** Applies one report; an error code when herdr would refuse it (nothing changes then). */
  report(r: MetadataReport, now: number): { error?: 'metadata_token_limit' } {
    const tokens = r.tokens ?? {};
    if (Object.keys(tokens).length > 0) {
      const keys = new Set(Object.keys(this.tokenValues(now)));
      for (const [k, v] of Object.entries(tokens)) v === null ? keys.delete(k) : keys.add(k);
      if (keys.size > MAX_TOKENS) return { error: 'metadata_token_limit' };
    }
    const labels = r.stateLabels ?? {};
    const sets = r.title !== undefined || r.displayAgent !== undefined || Object.keys(labels).length > 0;
    const clears = r.clearTitle === true || r.clearDisplayAgent === true || r.clearStateLabels === true;
    // report order, not the clock: two reports in one millisecond still order (newest wins)
    const order = ++this.order;
    if (sets || clears) {
      const old = this.entries.get(r.source);
      if (old && this.expired(old, now)) this.entries.delete(r.source);
      const stamp = (text: string | undefined) => (text === undefined ? null : { text, at: order });
      if (clears) {
        const e = this.entries.get(r.source) ?? this.fresh(r, now);
        if (r.clearTitle) e.title = null;
        if (r.clearDisplayAgent) e.display = null;
        if (r.clearStateLabels) e.labels.clear();
        if (r.agent !== undefined) e.agent = r.agent;
        if (r.appliesToSource !== undefined) e.appliesTo = r.appliesToSource;
        if (r.title !== undefined) e.title = stamp(r.title);
        if (r.displayAgent !== undefined) e.display = stamp(r.displayAgent);
        for (const [s, text] of Object.entries(labels)) e.labels.set(s, { text, at: order });
        if (sets || r.ttlMs !== undefined) {
          e.at = now;
          e.ttl = r.ttlMs ?? null;
        }
        this.entries.set(r.source, e);
      } else {
        const e = this.fresh(r, now);
        e.title = stamp(r.title);
        e.display = stamp(r.displayAgent);
        for (const [s, text] of Object.entries(labels)) e.labels.set(s, { text, at: order });
        this.entries.set(r.source, e);
      }
    }
    const expires = r.ttlMs === undefined ? null : now + r.ttlMs;
    for (const [k, v] of Object.entries(tokens)) {
      if (v === null) this.tokens.delete(k);
      else this.tokens.set(k, { value: v, expires });
    }
    return {};
  }

  view(now: number, g: PresentationGuards): PresentationView {
    const valid = [...this.entries.values()].filter((e) => this.shows(e, now, g));
    const newest = (pick: (e: Entry) => { text: string; at: number } | null): string | null => {
      let best: { text: string; at: number } | null = null;
      for (const e of valid) {
        const v = pick(e);
        if (v && (best === null || v.at > best.at)) best = v;
      }
      return best?.text ?? null;
    };
    const labels = valid.flatMap((e) => [...e.labels].map(([state, v]) => ({ state, ...v }))).sort((a, b) => a.at - b.at);
    const stateLabels: Record<string, string> = {};
    for (const l of labels) stateLabels[l.state] = l.text;
    return { title: newest((e) => e.title), displayAgent: newest((e) => e.display), stateLabels, tokens: this.tokenValues(now) };
  }

  /** The next time something shown vanishes by its ttl (the arbiter's timer), or null. */
  nextExpiry(now: number): number | null {
    let d: number | null = null;
    const take = (t: number | null): void => {
      if (t !== null && t > now && (d === null || t < d)) d = t;
    };
    for (const e of this.entries.values()) if (e.ttl !== null) take(e.at + e.ttl);
    for (const t of this.tokens.values()) take(t.expires);
    return d;
  }

  /** Drops what expired (called on ticks; the view already hides it). */
  expire(now: number): void {
    for (const [k, e] of this.entries) if (this.expired(e, now)) this.entries.delete(k);
    for (const [k, t] of this.tokens) if (t.expires !== null && t.expires <= now) this.tokens.delete(k);
  }

  /** herdr clears the metadata of an agent whose process exited: entries naming it or reported by `owns`. */
  forgetAgent(agent: string, owns: (source: string) => boolean): void {
    for (const [k, e] of this.entries) {
      if (e.agent === agent || owns(e.source) || (e.appliesTo !== null && owns(e.appliesTo))) this.entries.delete(k);
    }
  }

  clear(): void {
    this.entries.clear();
    this.tokens.clear();
  }

  private fresh(r: MetadataReport, now: number): Entry {
    return { source: r.source, agent: r.agent ?? null, appliesTo: r.appliesToSource ?? null, title: null, display: null, labels: new Map(), at: now, ttl: r.ttlMs ?? null };
  }

  private expired(e: Entry, now: number): boolean {
    return e.ttl !== null && now >= e.at + e.ttl;
  }

  private shows(e: Entry, now: number, g: PresentationGuards): boolean {
    if (e.title === null && e.display === null && e.labels.size === 0) return false;
    if (this.expired(e, now)) return false;
    if (e.agent !== null && e.agent !== g.agent) return false;
    if (e.appliesTo !== null && e.appliesTo !== g.authority) return false;
    return true;
  }

  private tokenValues(now: number): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, t] of this.tokens) if (t.expires === null || t.expires > now) out[k] = t.value;
    return out;
  }
}
