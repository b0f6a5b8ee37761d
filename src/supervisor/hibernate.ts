// Hibernation (docs/lifecycle.md): an agent that waits for nobody is stopped, its whole process
// tree, and its window keeps its last screen, shown by a tiny program (sh, then sleep: no Node
// per window). It wakes in the same window and conversation, resumed as `nerdr restore` resumes.
// This file holds the pure parts: who may hibernate, the record kept on the window, the screen
// kept, the tiny program, and the process tree that has to end.

import { readdirSync, readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';

/** The window option that says a window is hibernated, with what waking needs (JSON). */
export const HIBERNATED_OPTION = '@nerdr_hibernated';

export interface Hibernation {
  /** When it was hibernated (epoch ms). */
  since: number;
  /** The conversation it resumes when it wakes. */
  conversationId: string;
  /** The file holding its last screen (in the state folder). */
  screen: string;
  /** The agent's process tree's resident memory before it ended (kB), when it could be read. */
  rssKb: number | null;
}

/** The record as tmux keeps it; null when unset or unreadable. */
export function parseHibernation(text: string | undefined | null): Hibernation | null {
  if (!text) return null;
  try {
    const j = JSON.parse(text) as Partial<Hibernation>;
    if (typeof j.since !== 'number' || typeof j.conversationId !== 'string' || !j.conversationId || typeof j.screen !== 'string') return null;
    return { since: j.since, conversationId: j.conversationId, screen: j.screen, rssKb: typeof j.rssKb === 'number' ? j.rssKb : null };
  } catch {
    return null;
  }
}

export function hibernationJson(h: Hibernation): string {
  return JSON.stringify({ since: h.since, conversationId: h.conversationId, screen: h.screen, rssKb: h.rssKb });
}

/** What decides whether an agent may hibernate now. */
export interface HibernateCandidate {
  state: string;
  dead: boolean;
  /** Done and seen by the user (null while not done/idle). */
  seen: boolean | null;
  queued: number;
  conversationId: string | null;
  subagents: number;
  backgroundTasks: number;
  background: boolean;
  /** Whether the agent can resume a conversation by its id. */
  resumable: boolean;
}

/**
 * Why this agent may not hibernate now, or null when it may: it is idle, or done and seen, has
 * no queued message, a known conversation id it can resume, and nothing running in the
 * background (subagents, background tasks).
 */
export function whyNotHibernate(c: HibernateCandidate): string | null {
  if (c.state === 'hibernated') return 'it is hibernated already';
  if (c.dead || c.state === 'exited') return 'its program has exited';
  if (c.state === 'working') return 'it is working';
  if (c.state === 'blocked') return 'it waits for you (blocked)';
  if (c.state === 'done' && c.seen !== true) return 'it finished a turn you have not seen yet';
  if (c.state !== 'idle' && c.state !== 'done') return `it is ${c.state}: only an idle agent, or one done and seen, hibernates`;
  if (c.subagents > 0) return `${c.subagents} subagent${c.subagents === 1 ? ' runs' : 's run'}`;
  if (c.backgroundTasks > 0) return `${c.backgroundTasks} background task${c.backgroundTasks === 1 ? ' runs' : 's run'}`;
  if (c.background) return 'work goes on in the background';
  if (c.queued > 0) return `${c.queued} message${c.queued === 1 ? ' is' : 's are'} queued for it`;
  if (!c.resumable) return 'its agent cannot resume a conversation by id';
  if (!c.conversationId) return 'its conversation id is not known yet (its hooks report it)';
  return null;
}

/**
 * The screen kept for a hibernated window, from `capture-pane -e -p`: tmux's cells, which hold
 * text and SGR only. Anything else (an escape that is not SGR, a control character) is dropped,
 * so nothing the agent printed reaches the terminal as a command. Trailing blank rows go.
 */
export function keptScreen(captured: string): string {
  const rows = captured.replace(/\r/g, '').split('\n');
  const clean = rows.map((row) =>
    row
      // keep CSI … m (colours and attributes); drop every other escape sequence
      .replace(/\x1b\[([0-9;:]*)m|\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[P^_X][^\x1b]*(?:\x1b\\)?|\x1b./g, (m, sgr: string | undefined) => (sgr !== undefined ? m : ''))
      // other C0 and C1 controls, and an ESC that starts no SGR (one at the end of the row)
      .replace(/[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f\x80-\x9f]|\x1b(?!\[[0-9;:]*m)/g, ''),
  );
  while (clean.length > 0 && clean[clean.length - 1]!.replace(/\x1b\[[0-9;:]*m/g, '').trim() === '') clean.pop();
  return clean.join('\n');
}

/**
 * The tiny program of a hibernated window: shows the kept screen and a line saying how to wake
 * it, then sleeps with the terminal's echo off and Ctrl-C ignored. No user text is in the
 * script: the file and the name are positional parameters.
 */
export const HIBERNATED_SCRIPT =
  'trap "" INT QUIT TSTP; stty -echo -icanon 2>/dev/null; printf "\\033[H\\033[2J"; cat -- "$1"; ' +
  'printf "\\r\\n\\033[0;2m── hibernated by nerdr: nerdr wake %s, or send it a message ──\\033[0m" "$2"; exec sleep 2147483647';

export function hibernatedArgv(screenFile: string, name: string): string[] {
  return ['/bin/sh', '-c', HIBERNATED_SCRIPT, 'nerdr-hibernated', screenFile, name];
}

export interface TreeProcess {
  pid: number;
  ppid: number;
  session: number;
  rssKb: number;
}

/** Every process on the machine with its parent, session and resident memory, from /proc (Linux) or ps. */
export async function listProcesses(procRoot = '/proc'): Promise<TreeProcess[]> {
  let names: string[];
  try {
    names = readdirSync(procRoot);
  } catch {
    return psProcesses();
  }
  const out: TreeProcess[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const stat = readFileSync(`${procRoot}/${n}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const f = stat.slice(close + 2).split(' ');
      // after the name: state(0) ppid(1) pgrp(2) session(3) … rss is field 24 of stat: index 21 here
      out.push({ pid: Number(n), ppid: Number(f[1]), session: Number(f[3]), rssKb: (Number(f[21]) || 0) * 4 });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function psProcesses(): Promise<TreeProcess[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid=,sess=,rss='], { timeout: 5000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      if (err) return resolve([]);
      resolve(
        stdout
          .split('\n')
          .map((l) => l.trim().split(/\s+/).map(Number))
          .filter((v) => v.length >= 4 && v.every(Number.isFinite))
          .map(([pid, ppid, session, rss]) => ({ pid: pid!, ppid: ppid!, session: session!, rssKb: rss! })),
      );
    });
  });
}

/**
 * The agent's process tree: the pane's process, its descendants, and what else runs in its
 * session (a child that double-forked away from its parent stays in it). Pure.
 */
export function processTree(all: readonly TreeProcess[], panePid: number): TreeProcess[] {
  const root = all.find((p) => p.pid === panePid);
  if (!root) return [];
  const children = new Map<number, TreeProcess[]>();
  for (const p of all) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const seen = new Map<number, TreeProcess>([[root.pid, root]]);
  const todo = [root];
  while (todo.length > 0) {
    const p = todo.pop()!;
    for (const c of children.get(p.pid) ?? []) {
      if (!seen.has(c.pid)) {
        seen.set(c.pid, c);
        todo.push(c);
      }
    }
  }
  // the pane's process leads its session (tmux starts it with setsid)
  if (root.session === root.pid) for (const p of all) if (p.session === root.session && !seen.has(p.pid)) seen.set(p.pid, p);
  return [...seen.values()];
}

/** The tree's resident memory (kB). */
export function treeRssKb(tree: readonly TreeProcess[]): number {
  return tree.reduce((n, p) => n + p.rssKb, 0);
}
