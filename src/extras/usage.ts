// `nerdr usage`: token usage from the agents' logs, summed per agent CLI and folder.

import { usageRecords, type LogFile, type Tokens, type Tool } from './logs.js';

export interface UsageRow extends Tokens {
  tool: Tool;
  cwd: string;
  /** The nerdr agents (window names) working in that folder, when the supervisor told. */
  agents: string[];
  conversations: number;
  total: number;
}

/** Sums per (tool, folder); records before `since` are left out. */
export async function sumUsage(logs: LogFile[], opts: { since?: Date; names?: Map<string, string[]> } = {}): Promise<UsageRow[]> {
  const rows = new Map<string, UsageRow & { sessions: Set<string> }>();
  const since = opts.since?.getTime();
  for (const log of logs) {
    for (const r of await usageRecords(log)) {
      if (since !== undefined) {
        const t = r.time ? Date.parse(r.time) : NaN;
        if (!(t >= since)) continue;
      }
      const cwd = r.cwd ?? '?';
      const key = `${r.tool}\0${cwd}`;
      let row = rows.get(key);
      if (!row) {
        row = { tool: r.tool, cwd, agents: opts.names?.get(cwd) ?? [], conversations: 0, input: 0, cacheWrite: 0, cacheRead: 0, output: 0, total: 0, sessions: new Set() };
        rows.set(key, row);
      }
      row.sessions.add(r.session ?? log.file);
      row.input += r.input;
      row.cacheWrite += r.cacheWrite;
      row.cacheRead += r.cacheRead;
      row.output += r.output;
    }
  }
  return [...rows.values()]
    .map(({ sessions, ...row }) => ({ ...row, conversations: sessions.size, total: row.input + row.cacheWrite + row.cacheRead + row.output }))
    .sort((a, b) => b.total - a.total);
}

/** 1234567 → 1.2M */
export function shortCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)}M`;
}

/** `2026-11-30`, `2026-11-30T08:00`, `today`, `yesterday` (local midnight), or an age `7d` / `12h` / `30m`. */
export function parseSince(text: string, now = Date.now()): Date | null {
  const word = text.trim().toLowerCase();
  if (word === 'today' || word === 'yesterday') {
    const d = new Date(now);
    d.setHours(0, 0, 0, 0);
    if (word === 'yesterday') d.setDate(d.getDate() - 1);
    return d;
  }
  const rel = /^(\d+)([dhm])$/.exec(text.trim());
  if (rel) {
    const n = Number(rel[1]);
    const unit = rel[2] === 'd' ? 86_400_000 : rel[2] === 'h' ? 3_600_000 : 60_000;
    return new Date(now - n * unit);
  }
  const t = Date.parse(text);
  return Number.isNaN(t) ? null : new Date(t);
}
