// nerdr inside herdr: when the shell that started the supervisor runs in a herdr pane (HERDR_ENV=1,
// HERDR_PANE_ID, HERDR_BIN_PATH), herdr's sidebar shows that pane as one agent. nerdr reports its
// most urgent agent there with herdr's own CLI (`pane report-agent`), so the pane shows blocked
// while any agent waits for the user, else working, else done (herdr turns a working → idle
// report it did not see into done), else idle. The agents' own herdr hooks report to nerdr's
// socket (their HERDR_* point at nerdr), so they cannot overwrite it. docs/orchestration.md.

import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import type { AgentRow } from '../protocol/index.js';
import { urgentOrder } from './urgent.js';

/** What herdr is told: its states are idle, working, blocked, unknown. */
export interface UplinkReport {
  state: 'blocked' | 'working' | 'idle';
  message: string;
}

/** herdr, as found in the supervisor's environment; null when it does not run inside herdr. */
export interface HerdrTarget {
  bin: string;
  pane: string;
}

const same = (a: string, b: string): boolean => {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
};

/**
 * The herdr pane the supervisor was started in. Not when the HERDR_* variables are nerdr's own
 * (an agent window of nerdr's sets them for herdr's hooks, pointing at nerdr).
 */
export function herdrTarget(env: NodeJS.ProcessEnv, nerdrBin: string, nerdrSocket: string): HerdrTarget | null {
  if (env.HERDR_ENV !== '1' || !env.HERDR_PANE_ID || !env.HERDR_BIN_PATH) return null;
  if (same(env.HERDR_BIN_PATH, nerdrBin)) return null;
  if (env.HERDR_SOCKET_PATH && same(env.HERDR_SOCKET_PATH, nerdrSocket)) return null;
  if (env.NERDR_TAB) return null;
  return { bin: env.HERDR_BIN_PATH, pane: env.HERDR_PANE_ID };
}

const RANK: Record<string, number> = { blocked: 4, working: 3, done: 2, idle: 1 };

/** The report for these agents: the most urgent state, the oldest agent in it named. Pure. */
export function uplinkReport(rows: AgentRow[]): UplinkReport {
  const ranked = rows.filter((r) => RANK[r.state] !== undefined);
  if (ranked.length === 0) return { state: 'idle', message: rows.length === 0 ? 'nerdr: no agents' : 'nerdr: no agent is working' };
  const top = Math.max(...ranked.map((r) => RANK[r.state]!));
  const inTop = ranked.filter((r) => RANK[r.state] === top).sort((a, b) => a.stateSince - b.stateSince);
  const first = inTop[0]!;
  const more = inTop.length > 1 ? ` (+${inTop.length - 1} more)` : '';
  const what = first.state === 'blocked' ? 'needs you' : first.state;
  return { state: first.state === 'blocked' ? 'blocked' : first.state === 'working' ? 'working' : 'idle', message: `${first.name}: ${what}${more}` };
}

/** Reports to herdr when the report changes; one call at a time, the latest report last. */
export class HerdrUplink {
  private last = '';
  private running = false;
  private wanted: UplinkReport | null = null;
  private seq = 0;

  constructor(
    private readonly target: HerdrTarget,
    private readonly log: (m: string) => void,
    private readonly run: (bin: string, args: string[], done: (err: Error | null) => void) => void = (bin, args, done) =>
      void execFile(bin, args, { timeout: 10_000 }, (err) => done(err)),
  ) {}

  update(rows: AgentRow[]): void {
    const r = uplinkReport(rows);
    const key = `${r.state}\n${r.message}`;
    if (key === this.last && !this.wanted) return;
    this.wanted = r;
    this.last = key;
    this.flush();
  }

  private flush(): void {
    if (this.running || !this.wanted) return;
    const r = this.wanted;
    this.wanted = null;
    this.running = true;
    const args = ['pane', 'report-agent', this.target.pane, '--source', 'nerdr', '--agent', 'nerdr', '--state', r.state, '--message', r.message, '--seq', String(++this.seq)];
    this.run(this.target.bin, args, (err) => {
      this.running = false;
      if (err) this.log(`herdr: ${this.target.bin} pane report-agent failed: ${err.message}`);
      this.flush();
    });
  }
}

/** The subscription that tells the supervisor a client got focus (tmux 3.3: client-focus-in). */
export const FOCUS_SUBSCRIPTION = 'nerdr-f';

/**
 * The tmux commands that make a client's focus visible to the supervisor: a hook of our own index
 * (the user's client-focus-in hooks stay) counts focus events in a global option and names the
 * client, and a subscription reports the change (within a second): focusSubscription, made on
 * each new control client.
 */
export function focusWatchCommands(): string[][] {
  return [
    ['set-option', '-g', '@nerdr_focus_n', '0'],
    ['set-hook', '-g', 'client-focus-in[77]', "set-option -gF @nerdr_focus_client '#{client_name}' ; set-option -gF @nerdr_focus_n '#{e|+:#{@nerdr_focus_n},1}'"],
  ];
}

/**
 * The focus subscription, made on `anchor` (`_nerdr`'s own window, `@3`), not the client's session,
 * which tmux 3.2a and 3.3a may read after it is gone (src/supervisor/pane-watch.ts).
 */
export function focusSubscription(anchor: string): string[] {
  return ['refresh-client', '-B', `${FOCUS_SUBSCRIPTION}:${anchor}:#{@nerdr_focus_n}|#{@nerdr_focus_client}`];
}

/** The agent a focused client should be switched to: the oldest blocked, else the oldest done. */
export function mostUrgent(rows: AgentRow[]): AgentRow | null {
  return urgentOrder(rows, null)[0] ?? null;
}

/**
 * Switches a client that got focus to the most urgent agent, once per urgent event: focusing the
 * pane again with nothing new urgent leaves the client where the user put it.
 */
export class FocusSwitch {
  private lastEvent = '';
  private lastCount = '';

  /**
   * A focus report (the subscription's value): switch the client to an agent, or stay (and why);
   * null when it is no new focus.
   */
  focused(value: string, rows: AgentRow[]): { client: string; agent: AgentRow } | { client: string; stay: string } | null {
    const bar = value.indexOf('|');
    const count = value.slice(0, bar);
    const client = value.slice(bar + 1);
    if (bar < 0 || !client || count === this.lastCount || count === '0') return null;
    this.lastCount = count;
    const a = mostUrgent(rows);
    if (!a) return { client, stay: 'nothing needs the user' };
    const event = `${a.id}:${a.state}:${a.stateSince}`;
    if (event === this.lastEvent) return { client, stay: `${a.name} (${a.state}) was shown already` };
    this.lastEvent = event;
    return { client, agent: a };
  }
}
