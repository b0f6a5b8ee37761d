// One host of the fleet, as the local supervisor follows it: a single long-lived
// `ssh … <nerdr> events --json --no-start --as-resync` (ssh.ts), read line by line. It reconnects
// with backoff (0.5 s doubling to 60 s, back to 0.5 s after a minute of health) and keeps the
// last agents it knew, marked stale with the time, while the link is down. It never starts
// anything on the host. The process and the clock are injected (unit-tested without ssh).

import type { Clock, Timer } from '../supervisor/clock.js';
import type { AgentRow } from '../protocol/index.js';
import type { EventLine } from '../supervisor/events.js';
import type { LinkLine } from '../cli/events.js';
import { sanitize } from '../supervisor/socket/sanitize.js';
import { classifyExit, type FleetFailure } from './ssh.js';
import type { FleetHost } from '../config.js';

export const BACKOFF_FIRST_MS = 500;
export const BACKOFF_MAX_MS = 60_000;
/** A link that stayed up this long starts its backoff from the first step again. */
export const HEALTHY_MS = 60_000;

/** A running ssh, as the link needs it. */
export interface FleetProcess {
  /** Each stdout line (without its newline). */
  onLine(fn: (line: string) => void): void;
  /**
   * Once, when it has ended; stderr is what it wrote there (the last few KiB); lineOver the cap
   * (bytes) when it was ended for a line longer than that.
   */
  onExit(fn: (code: number | null, signal: string | null, stderr: string, lineOver?: number | null) => void): void;
  kill(): void;
}

export type SpawnFleet = (argv: string[]) => FleetProcess;

/**
 * connecting: ssh started, nothing heard yet; connected: the host's list arrived;
 * stale: the link is down, the agents shown are the last known; down: never heard from it (or
 * the host has nothing to show: no supervisor, no nerdr, a refused key).
 */
export type LinkState = 'connecting' | 'connected' | 'stale' | 'down';

/** The fields of a remote agent the fleet keeps (a remote `ls --json` row, cleaned). */
export type RemoteAgent = Pick<AgentRow, 'id' | 'name' | 'agent' | 'state' | 'stateSince' | 'session' | 'window' | 'windowIndex' | 'cwd' | 'queue' | 'seen' | 'subagents'>;

export interface HostStatus {
  name: string;
  target: string;
  state: LinkState;
  /** Since when the state holds (ms). */
  since: number;
  /** The last line heard from the host (ms), or null. */
  heardAt: number | null;
  /** Why the link last ended, with the fix; null while none did, or once healthy again. */
  error: FleetFailure | null;
  /** When the next attempt starts (ms), while waiting to reconnect. */
  retryAt: number | null;
  agents: RemoteAgent[];
  /** Connection attempts made since the supervisor started following the host. */
  attempts: number;
}

const KEEP: (keyof RemoteAgent)[] = ['id', 'name', 'agent', 'state', 'stateSince', 'session', 'window', 'windowIndex', 'cwd', 'queue', 'seen', 'subagents'];

/** A remote row reduced to what the fleet shows, every string cleaned of control characters. */
export function remoteAgent(row: unknown): RemoteAgent | null {
  if (typeof row !== 'object' || row === null) return null;
  const r = sanitize(row) as Record<string, unknown>;
  if (typeof r.id !== 'string' || typeof r.name !== 'string' || typeof r.state !== 'string' || typeof r.window !== 'string') return null;
  const out: Record<string, unknown> = {};
  for (const k of KEEP) out[k] = r[k] ?? null;
  return out as unknown as RemoteAgent;
}

export class FleetLink {
  private proc: FleetProcess | null = null;
  private retry: Timer | null = null;
  private delay = BACKOFF_FIRST_MS;
  private connectedAt: number | null = null;
  private stopped = true;
  private readonly agents = new Map<string, RemoteAgent>();
  private st: HostStatus;
  private attempts = 0;

  constructor(
    readonly name: string,
    readonly host: FleetHost,
    private readonly argv: string[],
    private readonly spawn: SpawnFleet,
    private readonly clock: Clock,
    private readonly changed: (link: FleetLink) => void,
  ) {
    this.st = { name, target: host.target, state: 'down', since: clock.now(), heardAt: null, error: null, retryAt: null, agents: [], attempts: 0 };
  }

  status(): HostStatus {
    return { ...this.st, agents: [...this.agents.values()], attempts: this.attempts };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.retry?.cancel();
    this.retry = null;
    const p = this.proc;
    this.proc = null;
    p?.kill();
  }

  private set(state: LinkState, extra: Partial<HostStatus> = {}): void {
    const since = state === this.st.state ? this.st.since : this.clock.now();
    this.st = { ...this.st, ...extra, state, since };
    this.changed(this);
  }

  private connect(): void {
    this.retry = null;
    if (this.stopped) return;
    this.attempts++;
    this.connectedAt = null;
    const p = this.spawn(this.argv);
    this.proc = p;
    // a host that was shown keeps its last agents (stale) until its new list arrives; one that
    // failed stays down (with its reason) while it is tried again
    const was = this.st.state;
    this.set(was === 'connected' || was === 'stale' ? 'stale' : was === 'down' && this.st.error ? 'down' : 'connecting', { retryAt: null });
    p.onLine((line) => {
      if (this.proc === p) this.onLine(line);
    });
    p.onExit((code, signal, stderr, lineOver) => {
      if (this.proc !== p) return;
      this.proc = null;
      this.ended(classifyExit(this.name, this.host, code, signal, stderr, lineOver ?? null));
    });
  }

  private onLine(line: string): void {
    let m: EventLine | LinkLine;
    try {
      m = JSON.parse(line) as EventLine | LinkLine;
    } catch {
      return; // not ours (a login banner, a motd): ignored
    }
    if (typeof m !== 'object' || m === null) return;
    const now = this.clock.now();
    switch (m.type) {
      case 'resync': {
        this.agents.clear();
        for (const row of Array.isArray(m.agents) ? m.agents : []) {
          const a = remoteAgent(row);
          if (a) this.agents.set(a.id, a);
        }
        if (this.connectedAt === null) this.connectedAt = now;
        this.set('connected', { heardAt: now, error: null });
        return;
      }
      case 'new':
      case 'change': {
        const a = remoteAgent(m.agent);
        if (a) this.agents.set(a.id, a);
        break;
      }
      case 'closed':
        if (typeof m.id === 'string') this.agents.delete(m.id);
        break;
      case 'reconnecting':
        // the host's supervisor went away and its nerdr waits for it (a resync follows when it
        // is back, or the ssh ends): the list is the last known meanwhile
        if (this.st.state === 'connected') this.set('stale', { heardAt: now });
        return;
      default:
        // `reconnected`, and types of newer nerdr: nothing to show
        return;
    }
    // changes count only once the list they change has arrived
    if (this.connectedAt !== null) this.set('connected', { heardAt: now });
  }

  private ended(why: FleetFailure): void {
    const now = this.clock.now();
    const wasUp = this.connectedAt !== null;
    if (wasUp && now - this.connectedAt! >= HEALTHY_MS) this.delay = BACKOFF_FIRST_MS;
    this.connectedAt = null;
    if (this.stopped) return;
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, BACKOFF_MAX_MS);
    const retryAt = now + wait;
    // what the host has nothing to show for (no supervisor, no nerdr, refused) is not stale data
    const keeps = this.agents.size > 0 || this.st.state === 'connected' || this.st.state === 'stale';
    this.set(keeps ? 'stale' : 'down', { error: why, retryAt });
    this.retry = this.clock.after(wait, () => this.connect());
  }
}
