// `nerdr search`: a case-insensitive substring search over the agents' conversation logs.

import { logEntries, type LogFile, type Tool } from './logs.js';

export interface SearchHit {
  tool: Tool;
  file: string;
  line: number;
  time: string | null;
  role: string;
  cwd: string | null;
  session: string | null;
  snippet: string;
}

/** The text around the first match, on one line. */
export function snippet(text: string, at: number, length: number, before = 40, after = 80): string {
  const start = Math.max(0, at - before);
  const end = Math.min(text.length, at + length + after);
  const flat = (s: string): string => s.replace(/\s+/g, ' ');
  return (start > 0 ? '…' : '') + flat(text.slice(start, end)).trim() + (end < text.length ? '…' : '');
}

/** Hits in the given logs, newest first, at most `limit`. */
export async function searchLogs(logs: LogFile[], query: string, limit = 50): Promise<SearchHit[]> {
  const needle = query.toLowerCase();
  const hits: SearchHit[] = [];
  for (const log of logs) {
    for await (const e of logEntries(log)) {
      const at = e.text.toLowerCase().indexOf(needle);
      if (at < 0) continue;
      hits.push({ tool: e.tool, file: e.file, line: e.line, time: e.time, role: e.role, cwd: e.cwd, session: e.session, snippet: snippet(e.text, at, needle.length) });
    }
  }
  hits.sort((a, b) => (b.time ?? '').localeCompare(a.time ?? '') || a.file.localeCompare(b.file) || a.line - b.line);
  return hits.slice(0, limit);
}
