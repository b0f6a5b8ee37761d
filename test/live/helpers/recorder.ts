// Every row the supervisor pushes (nerdr.subscribe), per window, in order. Live tests assert on this
// record rather than on polls, so a state that lasts a few milliseconds is never missed and "never
// went done" can be asserted.
import net from 'node:net';
import { waitFor, type AgentRowLike } from './env.js';

export interface Recorded {
  at: number;
  row: AgentRowLike;
}

/** The record of every window one supervisor reports. */
export class Recorder {
  readonly rows = new Map<string, Recorded[]>();
  closed = false;
  private sock: net.Socket | null = null;
  private buf = '';

  /** Subscribes on the supervisor's socket; resolves once the first snapshot is in. */
  start(socketPath: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const s = net.createConnection(socketPath);
      this.sock = s;
      s.on('error', reject);
      s.on('close', () => (this.closed = true));
      s.on('connect', () => s.write(`${JSON.stringify({ id: 'rec', method: 'nerdr.subscribe', params: {} })}\n`));
      s.on('data', (b: Buffer) => {
        this.buf += b.toString('utf8');
        let i: number;
        while ((i = this.buf.indexOf('\n')) >= 0) {
          const line = this.buf.slice(0, i);
          this.buf = this.buf.slice(i + 1);
          if (!line.trim()) continue;
          const msg = JSON.parse(line) as { id?: string; result?: { agents: AgentRowLike[] }; data?: { agents: AgentRowLike[] } };
          const at = Date.now();
          for (const row of msg.result?.agents ?? msg.data?.agents ?? []) {
            const list = this.rows.get(row.window) ?? [];
            list.push({ at, row });
            this.rows.set(row.window, list);
          }
          if (msg.id === 'rec') resolve();
        }
      });
    });
  }

  of(win: string): Recorded[] {
    return this.rows.get(win) ?? [];
  }

  /** A mark for `states(win, mark)`: what is recorded from now on. */
  mark(win: string): number {
    return this.of(win).length;
  }

  last(win: string): AgentRowLike | undefined {
    return this.of(win).at(-1)?.row;
  }

  /** The state changes of `win` from index `from` on (a row repeating the state before it is no change). */
  states(win: string, from = 0): string[] {
    const rows = this.of(win);
    const out: string[] = [];
    let prev = from > 0 ? rows[from - 1]?.row.state : undefined;
    for (const { row } of rows.slice(from)) {
      if (row.state !== prev) out.push(row.state);
      prev = row.state;
    }
    return out;
  }

  /** The last few rows of `win`, for failure messages. */
  tail(win: string, n = 8): string {
    return this.of(win)
      .slice(-n)
      .map(({ at, row }) => `${new Date(at).toISOString().slice(17, 23)} ${row.state}${row.subagents ? ` sub=${String(row.subagents)}` : ''}`)
      .join(', ');
  }

  /** Waits until the record of `win` since `from` holds `state` (a passing state counts too). */
  async reached(win: string, state: string, from: number, timeoutMs = 15_000): Promise<void> {
    await waitFor(() => this.states(win, from).includes(state), {
      timeoutMs,
      what: `${win} to be ${state} (seen since: ${this.states(win, from).join(' → ') || 'nothing'}; stream ${this.closed ? 'closed' : 'open'})`,
    });
  }

  stop(): void {
    this.sock?.destroy();
  }
}

/** The record of one window (its own subscription). */
export class StateRecorder {
  private readonly rec = new Recorder();

  constructor(readonly window: string) {}

  start(socketPath: string): Promise<void> {
    return this.rec.start(socketPath);
  }

  get rows(): Recorded[] {
    return this.rec.of(this.window);
  }

  get closed(): boolean {
    return this.rec.closed;
  }

  get mark(): number {
    return this.rec.mark(this.window);
  }

  get last(): AgentRowLike | undefined {
    return this.rec.last(this.window);
  }

  states(from = 0): string[] {
    return this.rec.states(this.window, from);
  }

  tail(n = 8): string {
    return this.rec.tail(this.window, n);
  }

  reached(state: string, from: number, timeoutMs = 15_000): Promise<void> {
    return this.rec.reached(this.window, state, from, timeoutMs);
  }

  stop(): void {
    this.rec.stop();
  }
}
