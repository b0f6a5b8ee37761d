// The agents' own conversation logs, read in place: where they are, and what one line says.
//
// Claude Code: `$CLAUDE_CONFIG_DIR` (else ~/.claude) /projects/<slug>/<session-id>.jsonl, where
// <slug> is the absolute cwd with every character outside [A-Za-z0-9] turned into `-`. Lines
// of type `user` / `assistant` carry `message` ({role, content, usage}), `timestamp`, `cwd`,
// `sessionId`. One API message is written as several lines (one per content block) that repeat
// its `usage`, so usage is counted once per `message.id`.
//
// Codex: `$CODEX_HOME` (else ~/.codex) /sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl (and
// archived_sessions/). Lines are {timestamp, type, payload}: `session_meta` (id, cwd),
// `turn_context` (cwd), `response_item` (message / function_call / function_call_output) and
// `event_msg`, whose `token_count` payload has `info.total_token_usage`, a running total for
// the session: usage is the growth of that total.

import { createReadStream, existsSync, openSync, readSync, closeSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

export type Tool = 'claude' | 'codex';

export interface LogFile {
  tool: Tool;
  file: string;
}

export interface LogEntry {
  tool: Tool;
  file: string;
  /** 1-based line number in the file. */
  line: number;
  time: string | null;
  /** user, assistant or tool. */
  role: string;
  text: string;
  cwd: string | null;
  session: string | null;
}

export interface Tokens {
  /** Input tokens not read from the cache. */
  input: number;
  cacheWrite: number;
  cacheRead: number;
  /** Output tokens, reasoning included. */
  output: number;
}

export interface UsageRecord extends Tokens {
  tool: Tool;
  file: string;
  time: string | null;
  cwd: string | null;
  session: string | null;
}

function home(env: NodeJS.ProcessEnv): string {
  return env.HOME || os.homedir();
}

export function claudeRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR ? path.resolve(env.CLAUDE_CONFIG_DIR) : path.join(home(env), '.claude');
}

export function codexRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home(env), '.codex');
}

/** Claude's project folder name for a working folder. */
export function claudeSlug(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

function walk(dir: string, out: string[], depth = 0): void {
  if (depth > 6) return;
  let names: import('node:fs').Dirent[];
  try {
    names = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const d of names) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) walk(p, out, depth + 1);
    else if (d.isFile() && d.name.endsWith('.jsonl')) out.push(p);
  }
}

/** The first `bytes` of a file, cut at the last full line. */
function head(file: string, bytes = 65536): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The folder a Codex rollout ran in, from its session_meta (or first turn_context) line. */
export function codexFileCwd(file: string): string | null {
  let text: string;
  try {
    text = head(file);
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    try {
      const o = JSON.parse(line) as { type?: string; payload?: { cwd?: unknown } };
      if ((o.type === 'session_meta' || o.type === 'turn_context') && typeof o.payload?.cwd === 'string') return o.payload.cwd;
    } catch {
      /* a cut line */
    }
  }
  return null;
}

/** Whether `dir` is `folder` or inside it. */
function within(dir: string, folder: string): boolean {
  const rel = path.relative(folder, dir);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Every Claude and Codex log, or (with `folders`) only those of conversations held in one of
 * those folders or below them.
 */
export function findLogs(folders: string[] | null, env: NodeJS.ProcessEnv = process.env): LogFile[] {
  const out: LogFile[] = [];
  const projects = path.join(claudeRoot(env), 'projects');
  if (existsSync(projects)) {
    const slugs = folders?.map(claudeSlug);
    for (const d of readdirSync(projects, { withFileTypes: true })) {
      if (!d.isDirectory()) continue;
      // long slugs are cut at 200 characters and given a hash suffix by Claude
      if (slugs && !slugs.some((s) => d.name === s || d.name.startsWith(s + '-') || (s.length > 200 && d.name.startsWith(s.slice(0, 200))))) continue;
      const files: string[] = [];
      walk(path.join(projects, d.name), files);
      for (const file of files) out.push({ tool: 'claude', file });
    }
  }
  const root = codexRoot(env);
  for (const sub of ['sessions', 'archived_sessions']) {
    const files: string[] = [];
    walk(path.join(root, sub), files);
    for (const file of files) {
      if (folders) {
        const cwd = codexFileCwd(file);
        if (!cwd || !folders.some((f) => within(cwd, f))) continue;
      }
      out.push({ tool: 'codex', file });
    }
  }
  return out.sort((a, b) => mtime(b.file) - mtime(a.file));
}

function mtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

async function* jsonLines(file: string): AsyncGenerator<[number, Record<string, unknown>]> {
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    n++;
    if (!line.startsWith('{')) continue;
    try {
      const o = JSON.parse(line) as unknown;
      if (o && typeof o === 'object' && !Array.isArray(o)) yield [n, o as Record<string, unknown>];
    } catch {
      /* a line being written */
    }
  }
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const asStr = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const asNum = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The readable text of a message content: a string, or an array of typed blocks. */
function contentText(content: unknown): { text: string; tool: boolean } {
  if (typeof content === 'string') return { text: content, tool: false };
  if (!Array.isArray(content)) return { text: '', tool: false };
  const parts: string[] = [];
  let tool = false;
  for (const block of content) {
    const b = asObj(block);
    if (typeof b.text === 'string') parts.push(b.text);
    else if (b.type === 'tool_use') {
      tool = true;
      parts.push(`${String(b.name ?? 'tool')} ${JSON.stringify(b.input ?? {})}`);
    } else if (b.type === 'tool_result') {
      tool = true;
      parts.push(contentText(b.content).text);
    }
  }
  return { text: parts.join('\n'), tool };
}

const CODEX_CONTEXT = /^\s*<(environment_context|user_instructions|permissions instructions)>/;

/**
 * The lines of a Codex log other than its session_meta and turn_context lines, each with the
 * folder and session those lines set before it.
 */
async function* codexLines(file: string): AsyncGenerator<{ line: number; o: Record<string, unknown>; p: Record<string, unknown>; cwd: string | null; session: string | null }> {
  let cwd: string | null = null;
  let session: string | null = null;
  for await (const [line, o] of jsonLines(file)) {
    const p = asObj(o.payload);
    if (o.type === 'session_meta') {
      cwd = asStr(p.cwd) ?? cwd;
      session = asStr(p.id) ?? session;
      continue;
    }
    if (o.type === 'turn_context') {
      cwd = asStr(p.cwd) ?? cwd;
      continue;
    }
    yield { line, o, p, cwd, session };
  }
}

/** Every message, tool call and tool result in one log. */
export async function* logEntries(log: LogFile): AsyncGenerator<LogEntry> {
  if (log.tool === 'claude') {
    let cwd: string | null = null;
    let session: string | null = null;
    for await (const [line, o] of jsonLines(log.file)) {
      if (o.type !== 'user' && o.type !== 'assistant') continue;
      cwd = asStr(o.cwd) ?? cwd;
      session = asStr(o.sessionId) ?? session;
      const msg = asObj(o.message);
      const { text, tool } = contentText(msg.content);
      if (!text) continue;
      yield { tool: 'claude', file: log.file, line, time: asStr(o.timestamp), role: tool ? 'tool' : (asStr(msg.role) ?? String(o.type)), text, cwd, session };
    }
    return;
  }
  for await (const { line, o, p, cwd, session } of codexLines(log.file)) {
    if (o.type !== 'response_item') continue;
    let role: string | null = null;
    let text = '';
    if (p.type === 'message') {
      role = asStr(p.role);
      text = contentText(p.content).text;
      if (role !== 'user' && role !== 'assistant') continue;
      if (CODEX_CONTEXT.test(text)) continue;
    } else if (p.type === 'function_call' || p.type === 'custom_tool_call') {
      role = 'tool';
      text = `${String(p.name ?? 'tool')} ${asStr(p.arguments) ?? asStr(p.input) ?? ''}`;
    } else if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output') {
      role = 'tool';
      const out = p.output;
      text = typeof out === 'string' ? out : (asStr(asObj(out).content) ?? JSON.stringify(out ?? ''));
    }
    if (!role || !text) continue;
    yield { tool: 'codex', file: log.file, line, time: asStr(o.timestamp), role, text, cwd, session };
  }
}

/** Token usage in one log, one record per API response (Claude) or per growth of Codex's total. */
export async function usageRecords(log: LogFile): Promise<UsageRecord[]> {
  const out: UsageRecord[] = [];
  if (log.tool === 'claude') {
    let cwd: string | null = null;
    let session: string | null = null;
    const byMessage = new Map<string, UsageRecord>();
    for await (const [line, o] of jsonLines(log.file)) {
      if (o.type !== 'assistant') continue;
      cwd = asStr(o.cwd) ?? cwd;
      session = asStr(o.sessionId) ?? session;
      const msg = asObj(o.message);
      const u = msg.usage;
      if (!u || typeof u !== 'object') continue;
      const usage = asObj(u);
      const key = asStr(msg.id) ?? asStr(o.requestId) ?? asStr(o.uuid) ?? `line-${line}`;
      // the last line of a message has its final output count
      byMessage.set(key, {
        tool: 'claude',
        file: log.file,
        time: asStr(o.timestamp),
        cwd,
        session,
        input: asNum(usage.input_tokens),
        cacheWrite: asNum(usage.cache_creation_input_tokens),
        cacheRead: asNum(usage.cache_read_input_tokens),
        output: asNum(usage.output_tokens),
      });
    }
    return [...byMessage.values()];
  }
  let prev = { input: 0, cached: 0, output: 0 };
  for await (const { o, p, cwd, session } of codexLines(log.file)) {
    if (o.type !== 'event_msg' || p.type !== 'token_count') continue;
    const total = asObj(asObj(p.info).total_token_usage);
    if (Object.keys(total).length === 0) continue;
    const now = { input: asNum(total.input_tokens), cached: asNum(total.cached_input_tokens), output: asNum(total.output_tokens) };
    // a total that shrank belongs to a new count (a resumed or compacted session)
    const base = now.input < prev.input || now.output < prev.output ? { input: 0, cached: 0, output: 0 } : prev;
    const d = { input: now.input - base.input, cached: now.cached - base.cached, output: now.output - base.output };
    prev = now;
    if (d.input === 0 && d.output === 0 && d.cached === 0) continue;
    out.push({
      tool: 'codex',
      file: log.file,
      time: asStr(o.timestamp),
      cwd,
      session,
      input: Math.max(0, d.input - d.cached),
      cacheWrite: 0,
      cacheRead: Math.max(0, d.cached),
      output: d.output,
    });
  }
  return out;
}
