// The dashboard's table: one row per agent, as plain data (tested without a screen).

import os from 'node:os';
import { age, LIGHT_KINDS } from '../looks.js';
import type { AgentRow } from '../protocol/index.js';
import type { Kind } from '../looks.js';
import { visible } from '../text.js';

/** The agent row as the supervisor sends it, with the fields other versions may lack. */
export type AgentInfo = AgentRow & { queue?: number; queueStalled?: boolean };

export interface DashRow {
  /** Stable across updates: the selection follows it. */
  key: string;
  /** What the socket methods take (the window id). */
  target: string;
  session: string;
  sessions: string[];
  window: string;
  name: string;
  agent: string;
  state: string;
  kind: Kind;
  age: string;
  queue: string;
  cwd: string;
  /** The folder as it is (for actions in it, e.g. a new agent beside this one). */
  cwdFull: string;
  /** Its worktree's branch (docs/worktrees.md), '-' for none. */
  branch: string;
  /** Reported by the agent (`pane report-metadata`): the text for its state, and a title. */
  stateLabel: string | null;
  title: string | null;
}

export function lightKind(a: AgentInfo): Kind {
  if (a.exitStatus !== null && a.exitStatus !== undefined) return 'exited';
  if (a.queueStalled) return 'stalled';
  if (a.state === 'working' && a.background) return 'background';
  return ((LIGHT_KINDS as readonly string[]).includes(a.state) ? a.state : 'unknown') as Kind;
}

export function queueText(a: AgentInfo): string {
  if (typeof a.queue !== 'number' || (a.queue === 0 && !a.queueStalled)) return '-';
  return a.queueStalled ? `${a.queue}⏸` : String(a.queue);
}

/** `~/src/app` for a folder under HOME. */
export function shortCwd(cwd: string, home = os.homedir()): string {
  return home && (cwd === home || cwd.startsWith(home + '/')) ? '~' + cwd.slice(home.length) : cwd;
}

/** Rows in status-bar order: by session, then window index. */
export function dashRows(agents: AgentInfo[], now: number, home?: string): DashRow[] {
  return [...agents]
    .sort((a, b) => a.session.localeCompare(b.session) || (a.windowIndex ?? 1e9) - (b.windowIndex ?? 1e9) || a.name.localeCompare(b.name))
    .map((a) => ({
      key: a.id || a.pane,
      target: a.window,
      session: a.session,
      sessions: a.sessions ?? [a.session],
      window: a.window,
      name: visible(a.name),
      agent: visible(a.displayAgent || a.reportedAgent || a.agent),
      state: a.state + (a.state === 'working' && a.background ? '+bg' : ''),
      kind: lightKind(a),
      age: age(now - a.stateSince),
      queue: queueText(a),
      cwd: visible(shortCwd(a.cwd, home)),
      cwdFull: a.cwd,
      branch: a.branch ? visible(a.branch) + (a.conflict ? ' ⚠' : '') : '-',
      stateLabel: a.stateLabel ? visible(a.stateLabel) : null,
      title: a.title ? visible(a.title) : null,
    }));
}

/** Fits text into `width` cells: cut with … (at the start when `left`), padded. */
export function fit(text: string, width: number, left = false): string {
  const chars = [...text];
  if (width <= 0) return '';
  if (chars.length > width) return left ? '…' + chars.slice(chars.length - width + 1).join('') : chars.slice(0, width - 1).join('') + '…';
  return text + ' '.repeat(width - chars.length);
}

export const COLUMNS = { name: 18, agent: 9, state: 10, age: 7, queue: 6, branch: 14 } as const;

/** The header and body cells of one line, without the light (drawn apart, in colour). */
export function rowCells(r: DashRow | null, width: number): string {
  const c = COLUMNS;
  const fixed = c.name + c.agent + c.state + c.age + c.queue + c.branch;
  const rest = Math.max(4, width - fixed);
  // never wider than asked: a row that wraps pushes the rows after it out of a small popup
  if (!r) return fit(fit('NAME', c.name) + fit('AGENT', c.agent) + fit('STATE', c.state) + fit('FOR', c.age) + fit('QUEUE', c.queue) + fit('BRANCH', c.branch) + fit('CWD', rest), width);
  // what the agent reported to show (its state's text, a title) comes first; the folder then
  // gives way at the end rather than at the start
  const shown = [r.stateLabel, r.title].filter(Boolean).join(' · ');
  const last = shown ? fit(`${shown}  ${r.cwd}`, rest) : fit(r.cwd, rest, true);
  return fit(fit(r.name, c.name) + fit(r.agent, c.agent) + fit(r.state, c.state) + fit(r.age, c.age) + fit(r.queue, c.queue) + fit(r.branch, c.branch) + last, width);
}
