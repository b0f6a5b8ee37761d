// `nerdr pane report-agent | report-agent-session | release-agent | report-metadata`: herdr's CLI
// for hooks (docs/socket-protocol.md), so herdr's own integration scripts work with
// HERDR_BIN_PATH pointing at nerdr. qodercli's, qwen's and hermes's hooks call it.
//
// herdr's grammar, parsed by hand as herdr does (not by commander, which would read a pane id
// such as `-Vabc` as its own `-V`): the first argument is the pane id whatever it looks like, then
// `--flag value` pairs in any order; a value is taken as it is, even when it starts with `-`.
// nerdr's one addition: when the first argument is one of the command's own options, the pane id
// comes from HERDR_PANE_ID, then NERDR_TAB. herdr's global `--session NAME` is accepted anywhere
// (and ignored: nerdr serves one socket per tmux server, named by HERDR_SOCKET_PATH).
//
// Exit codes (herdr's): 0 success (prints nothing), also when no supervisor answers but one ran
// for this socket: the report is then kept in its spool and applied when it is back (tmux revives
// it); 1 server error (the JSON error reply on stderr), server not running and never ran (a JSON
// `server_not_running` error), an invalid --state, --seq or
// --ttl-ms value; 2 usage (missing value, unknown option, `--flag=value`, missing required flag
// or pane id, a malformed --state-label / --token, a metadata report that sets nothing).
//
// main.ts sends every `nerdr … pane …` here before commander sees it; `register` only lists the
// command in `nerdr --help`.

import type { Command } from 'commander';
import { exitFor } from '../errors.js';
import { statSync } from 'node:fs';
import { request, SocketRequestError } from '../supervisor/socket/client.js';
import { stringifyExact } from '../supervisor/socket/exact-json.js';
import { spoolDirForSocket, writeSpoolFile } from '../supervisor/spool.js';
import { serverFiles } from '../paths.js';
import { resolveSocket } from '../tmux/server.js';

const REQUEST_ID = 'cli:request';
const TIMEOUT_MS = 5000;
const U64_MAX = (1n << 64n) - 1n;
const STATES = ['idle', 'working', 'blocked', 'unknown'];
const LABEL_STATES = ['idle', 'working', 'blocked', 'done', 'unknown'];

type Sub = 'report-agent' | 'report-agent-session' | 'release-agent' | 'report-metadata';

interface SubSpec {
  method: string;
  usage: string;
  /** Options that take a value. */
  values: readonly string[];
  /** Options that take none. */
  switches: readonly string[];
}

const SUBS: Record<Sub, SubSpec> = {
  'report-agent': {
    method: 'pane.report_agent',
    usage: 'nerdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown [--message TEXT] [--seq N] [--agent-session-id ID] [--agent-session-path PATH]',
    values: ['--source', '--agent', '--state', '--message', '--seq', '--agent-session-id', '--agent-session-path'],
    switches: [],
  },
  'report-agent-session': {
    method: 'pane.report_agent_session',
    usage: 'nerdr pane report-agent-session <pane_id> --source ID --agent LABEL [--seq N] [--agent-session-id ID] [--agent-session-path PATH] [--session-start-source SOURCE]',
    values: ['--source', '--agent', '--seq', '--agent-session-id', '--agent-session-path', '--session-start-source'],
    switches: [],
  },
  'release-agent': {
    method: 'pane.release_agent',
    usage: 'nerdr pane release-agent <pane_id> --source ID --agent LABEL [--seq N]',
    values: ['--source', '--agent', '--seq'],
    switches: [],
  },
  'report-metadata': {
    method: 'pane.report_metadata',
    usage:
      'nerdr pane report-metadata <pane_id> --source ID [--agent LABEL] [--applies-to-source ID] [--title TEXT|--clear-title] [--display-agent TEXT|--clear-display-agent] [--state-label STATUS=TEXT] [--clear-state-labels] [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]',
    values: ['--source', '--agent', '--applies-to-source', '--title', '--display-agent', '--state-label', '--token', '--clear-token', '--seq', '--ttl-ms'],
    switches: ['--clear-title', '--clear-display-agent', '--clear-state-labels'],
  },
};

const HELP = [
  "nerdr pane commands (herdr's, for herdr's integration scripts):",
  ...Object.values(SUBS).map((s) => `  ${s.usage}`),
  '',
  '<pane_id> is the window\'s secret; when the first argument is an option it comes from HERDR_PANE_ID, then NERDR_TAB.',
  'The socket is HERDR_SOCKET_PATH, then NERDR_SOCKET, then the supervisor\'s of the tmux server you are in. --session NAME (herdr\'s) is accepted and ignored.',
].join('\n');

/**
 * Where the report goes: herdr's variable first (herdr's scripts), then nerdr's, then the
 * socket of the supervisor of the tmux server the caller is in (as every other command finds
 * it). Outside tmux with neither variable there is nowhere to report: a NerdrError says so.
 */
export function resolveSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HERDR_SOCKET_PATH) return env.HERDR_SOCKET_PATH;
  if (env.NERDR_SOCKET) return env.NERDR_SOCKET;
  return serverFiles(resolveSocket({}, env), env).socket;
}

/** A usage error: exit 2. */
class Usage extends Error {}
/** A bad value herdr reports as a plain error: exit 1. */
class Invalid extends Error {}

/** herdr's session names: 1–64 bytes of ASCII letters, digits, `.`, `_`, `-`; not `.` or `..`. */
function checkSessionName(name: string): void {
  if (name === '') throw new Usage('error: session name cannot be empty');
  if (name.length > 64) throw new Usage('error: session name cannot be longer than 64 bytes');
  if (name === '.' || name === '..') throw new Usage('error: session name cannot be . or ..');
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Usage("error: session name may only contain ASCII letters, numbers, '.', '_' and '-'");
}

/**
 * herdr removes `--session NAME` / `--session=NAME` wherever it stands (up to a `--`) before the
 * command sees its arguments; so does nerdr.
 */
export function stripSession(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (a === '--session') {
      const v = args[i + 1];
      if (v === undefined) throw new Usage('error: missing value for --session');
      checkSessionName(v);
      i++;
      continue;
    }
    if (a.startsWith('--session=')) {
      checkSessionName(a.slice('--session='.length));
      continue;
    }
    out.push(a);
  }
  return out;
}

function parseU64Flag(flag: string, value: string): bigint {
  // Rust's u64 parse: decimal digits, an optional leading +
  if (!/^\+?\d+$/.test(value)) throw new Invalid(`error: invalid value for ${flag}: ${value}`);
  const n = BigInt(value.replace(/^\+/, ''));
  if (n > U64_MAX) throw new Invalid(`error: invalid value for ${flag}: ${value}`);
  return n;
}

/** The request params for one subcommand's arguments (those after the subcommand's name). */
export function paneParams(sub: Sub, args: string[], env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  const spec = SUBS[sub];
  let rest = args;
  let paneId: string | undefined;
  const first = args[0];
  if (first !== undefined && !spec.values.includes(first) && !spec.switches.includes(first)) {
    paneId = first;
    rest = args.slice(1);
  } else {
    paneId = env.HERDR_PANE_ID || env.NERDR_TAB || undefined;
  }
  if (paneId === undefined) throw new Usage(`usage: ${spec.usage}`);

  const one = new Map<string, string>();
  const set = new Set<string>();
  const stateLabels: Record<string, string> = {};
  const tokens: Record<string, string | null> = {};
  let seq: bigint | undefined;
  let ttl: bigint | undefined;
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    if (spec.switches.includes(flag)) {
      set.add(flag);
      continue;
    }
    if (!spec.values.includes(flag)) throw new Usage(`unknown option: ${flag}`);
    const value = rest[i + 1];
    if (value === undefined) throw new Usage(`missing value for ${flag}`);
    i++;
    switch (flag) {
      case '--state':
        if (!STATES.includes(value)) throw new Invalid(`error: invalid pane agent state: ${value} (expected idle, working, blocked, or unknown)`);
        one.set(flag, value);
        break;
      case '--seq':
        seq = parseU64Flag(flag, value);
        break;
      case '--ttl-ms':
        ttl = parseU64Flag(flag, value);
        break;
      case '--state-label': {
        const eq = value.indexOf('=');
        if (eq === -1) throw new Usage('expected --state-label STATUS=TEXT');
        const status = value.slice(0, eq).trim().toLowerCase();
        if (!LABEL_STATES.includes(status)) throw new Usage(`unknown state label: ${status}`);
        stateLabels[status] = value.slice(eq + 1);
        break;
      }
      case '--token': {
        const eq = value.indexOf('=');
        if (eq === -1) throw new Usage('token must use NAME=VALUE');
        if (eq === 0) throw new Usage('token name must not be empty');
        tokens[value.slice(0, eq)] = value.slice(eq + 1);
        break;
      }
      case '--clear-token':
        tokens[value] = null;
        break;
      default:
        one.set(flag, value);
    }
  }

  const source = one.get('--source')?.trim();
  if (!source) throw new Usage('missing required --source');
  const params: Record<string, unknown> = { pane_id: paneId, source };
  const agent = one.get('--agent');
  if (sub !== 'report-metadata' && agent === undefined) throw new Usage('missing required --agent');
  if (agent !== undefined) params.agent = agent;
  if (sub === 'report-agent') {
    const state = one.get('--state');
    if (state === undefined) throw new Usage('missing required --state');
    params.state = state;
    if (one.has('--message')) params.message = one.get('--message');
  }
  if (seq !== undefined) params.seq = seq;
  if (sub === 'report-agent' || sub === 'report-agent-session') {
    if (one.has('--agent-session-id')) params.agent_session_id = one.get('--agent-session-id');
    if (one.has('--agent-session-path')) params.agent_session_path = one.get('--agent-session-path');
  }
  if (sub === 'report-agent-session' && one.has('--session-start-source')) params.session_start_source = one.get('--session-start-source');
  if (sub === 'report-metadata') {
    const applies = one.get('--applies-to-source');
    if (applies !== undefined && applies.trim() === '') throw new Usage('missing value for --applies-to-source');
    const title = one.get('--title');
    const display = one.get('--display-agent');
    const clearTitle = set.has('--clear-title');
    const clearDisplay = set.has('--clear-display-agent');
    const clearLabels = set.has('--clear-state-labels');
    const labels = Object.keys(stateLabels).length > 0;
    if ((title !== undefined && clearTitle) || (display !== undefined && clearDisplay) || (labels && clearLabels)) {
      throw new Usage('cannot set and clear the same metadata field');
    }
    if (title === undefined && display === undefined && !labels && Object.keys(tokens).length === 0 && !clearTitle && !clearDisplay && !clearLabels) {
      throw new Usage('missing metadata field to set or clear');
    }
    if (applies !== undefined) params.applies_to_source = applies;
    if (title !== undefined) params.title = title;
    if (display !== undefined) params.display_agent = display;
    if (labels) params.state_labels = stateLabels;
    if (Object.keys(tokens).length > 0) params.tokens = tokens;
    params.clear_title = clearTitle;
    params.clear_display_agent = clearDisplay;
    params.clear_state_labels = clearLabels;
    if (ttl !== undefined) params.ttl_ms = ttl;
  }
  return params;
}

/** Leading global options before the command word (`-L x`, `-Sx`, `--session x` …). */
function skipGlobals(args: string[]): number {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-L' || a === '-S' || a === '--session') i++;
    else if (/^-[LS]./.test(a) || a.startsWith('--session=')) continue;
    else break;
  }
  return i;
}

function write(stream: NodeJS.WriteStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** herdr's exit statuses: 2 for usage, 1 for any other failure (a server error whatever its code). */
const USAGE = exitFor('usage');
const FAILED = exitFor('failed');

/**
 * Runs `nerdr [globals] pane <sub> …` (args: the command line after the program name) and
 * returns the exit code. Prints only on stderr, except help.
 */
export async function runPane(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const all = stripSession(args);
    const at = skipGlobals(all);
    if (all[at] !== 'pane') throw new Usage(HELP);
    const sub = all[at + 1];
    if (sub === undefined) {
      write(process.stderr, HELP);
      return USAGE;
    }
    if (sub === 'help' || sub === '--help' || sub === '-h') {
      write(process.stdout, HELP);
      return 0;
    }
    if (!(sub in SUBS)) {
      write(process.stderr, HELP);
      return USAGE;
    }
    const rest = all.slice(at + 2);
    if (rest[0] === '--help' || rest[0] === '-h') {
      write(process.stdout, `usage: ${SUBS[sub as Sub].usage}`);
      return 0;
    }
    const params = paneParams(sub as Sub, rest, env);
    const socketPath = resolveSocketPath(env);
    try {
      await request(socketPath, SUBS[sub as Sub].method, params, { id: REQUEST_ID, timeoutMs: TIMEOUT_MS });
    } catch (e) {
      // no supervisor answers (it is being revived, or died while answering): the report is kept
      // in its spool, as hook events are, and applied when it is back. One the dying supervisor
      // had applied is applied again: a report states a state, and its seq (when it has one)
      // makes the second a stale one
      const lost = e instanceof SocketRequestError && LOST.has(e.code);
      if (!(lost && keepReport(socketPath, SUBS[sub as Sub].method, params))) throw e;
    }
    return 0;
  } catch (e) {
    if (e instanceof Usage) {
      write(process.stderr, e.message);
      return USAGE;
    }
    if (e instanceof Invalid) {
      write(process.stderr, e.message);
      return FAILED;
    }
    if (e instanceof SocketRequestError) {
      const reply = e.response ?? { id: REQUEST_ID, error: { code: e.code, message: e.message } };
      write(process.stderr, JSON.stringify(reply));
      return FAILED;
    }
    write(process.stderr, `error: ${e instanceof Error ? e.message : String(e)}`);
    return FAILED;
  }
}

let spooled = 0;
/** The request errors that mean no supervisor took the report: no socket, or the connection died. */
const LOST = new Set(['server_not_running', 'connection_failed', 'connection_closed']);

/**
 * Writes a report into the supervisor's hook spool (src/supervisor/spool.ts), for when it is
 * back; false when there is no spool to keep it in (no supervisor ever ran for this socket).
 */
function keepReport(socketPath: string, method: string, params: Record<string, unknown>): boolean {
  const dir = spoolDirForSocket(socketPath);
  const secret = typeof params.pane_id === 'string' ? params.pane_id : '';
  if (!secret || /[\n\r]/.test(secret)) return false;
  try {
    if (!statSync(dir).isDirectory()) return false;
    const timeNs = BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
    writeSpoolFile(dir, { secret, agent: '-', method, timeNs, seq: spooled++, payload: stringifyExact({ method, params }) });
    return true;
  } catch {
    return false;
  }
}

/** Lists `pane` in `nerdr --help`. main.ts runs `pane` itself (runPane), before commander parses. */
export function register(program: Command): void {
  program
    .command('pane')
    .description("herdr's pane reports (report-agent, report-agent-session, release-agent, report-metadata) for herdr's integration scripts")
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]')
    .action(async () => {
      const raw = (program as unknown as { rawArgs?: string[] }).rawArgs ?? process.argv;
      process.exitCode = await runPane(raw.slice(2));
    });
}
