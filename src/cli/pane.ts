// `nerdr pane report-agent | report-agent-session | release-agent`: herdr's CLI for hooks
// (integration-protocol §2.6), so herdr's own integration scripts work with HERDR_BIN_PATH
// pointing at nerdr.
//
// Exit codes: 0 success (prints nothing); 1 server error (the JSON error reply on stderr),
// server not running (a JSON `server_not_running` error), or an invalid --state/--seq value;
// 2 usage (missing value, unknown option, `--flag=value`, missing required flag).

import { homedir } from 'node:os';
import { join } from 'node:path';
import { Command, type CommanderError } from 'commander';
import { request, SocketRequestError } from '../supervisor/socket/client.js';
import { parseU64 } from '../supervisor/socket/exact-json.js';

const STATES = ['idle', 'working', 'blocked', 'unknown'];
const REQUEST_ID = 'cli:request';
const TIMEOUT_MS = 5000;

/** Options of each subcommand that take a value (for the `--flag=value` refusal). */
const VALUE_FLAGS = new Set([
  '--source', '--agent', '--state', '--message', '--seq', '--agent-session-id', '--agent-session-path', '--session-start-source',
]);

/** Where the report goes: herdr's variable first (herdr's scripts), then nerdr's, then the default. */
export function resolveSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HERDR_SOCKET_PATH) return env.HERDR_SOCKET_PATH;
  if (env.NERDR_SOCKET) return env.NERDR_SOCKET;
  const state = env.NERDR_STATE_DIR || join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'nerdr');
  return join(state, 'nerdr.sock');
}

class UsageError extends Error {}
class ValueError extends Error {}

/** herdr's grammar does not accept `--flag=value` on these subcommands. */
function refuseEqualsForm(program: Command, sub: string): void {
  const raw = ((program as unknown as { rawArgs?: string[] }).rawArgs ?? process.argv).slice();
  const at = raw.indexOf(sub, raw.indexOf('pane') + 1);
  if (at === -1) return;
  for (let i = at + 1; i < raw.length; i++) {
    const a = raw[i]!;
    if (a === '--') break;
    if (VALUE_FLAGS.has(a)) {
      i++; // its value, whatever it looks like
      continue;
    }
    if (/^--[^=]+=/.test(a)) throw new UsageError(`error: unknown option '${a}'`);
  }
}

interface Flags {
  source: string;
  agent: string;
  state?: string;
  message?: string;
  seq?: string;
  agentSessionId?: string;
  agentSessionPath?: string;
  sessionStartSource?: string;
}

function buildParams(paneId: string, f: Flags, method: string): Record<string, unknown> {
  const source = f.source.trim();
  if (source === '') throw new ValueError('error: --source must not be empty');
  const params: Record<string, unknown> = { pane_id: paneId, source, agent: f.agent };
  if (method === 'pane.report_agent') {
    if (!f.state || !STATES.includes(f.state)) {
      throw new ValueError(`error: invalid value '${f.state ?? ''}' for --state: expected one of idle, working, blocked, unknown`);
    }
    params.state = f.state;
    if (f.message !== undefined) params.message = f.message;
  }
  if (f.seq !== undefined) {
    const seq = parseU64(f.seq.trim());
    if (seq === undefined || seq === null) throw new ValueError(`error: invalid value '${f.seq}' for --seq: expected an unsigned 64-bit integer`);
    params.seq = seq;
  }
  if (method !== 'pane.release_agent') {
    if (f.agentSessionId !== undefined) params.agent_session_id = f.agentSessionId;
    if (f.agentSessionPath !== undefined) params.agent_session_path = f.agentSessionPath;
  }
  if (method === 'pane.report_agent_session' && f.sessionStartSource !== undefined) params.session_start_source = f.sessionStartSource;
  return params;
}

async function run(program: Command, sub: string, method: string, paneArg: string | undefined, flags: Flags): Promise<void> {
  try {
    refuseEqualsForm(program, sub);
    const paneId = paneArg ?? process.env.HERDR_PANE_ID ?? process.env.NERDR_TAB;
    if (!paneId) throw new UsageError(`error: missing required argument 'pane_id'`);
    const params = buildParams(paneId, flags, method);
    await request(resolveSocketPath(), method, params, { id: REQUEST_ID, timeoutMs: TIMEOUT_MS });
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n`);
      process.exitCode = 2;
    } else if (e instanceof ValueError) {
      process.stderr.write(`${e.message}\n`);
      process.exitCode = 1;
    } else if (e instanceof SocketRequestError) {
      const reply = e.response ?? { id: REQUEST_ID, error: { code: e.code, message: e.message } };
      process.stderr.write(`${JSON.stringify(reply)}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    }
  }
}

/** Commander's own usage errors exit 2 (herdr's convention); help exits 0. */
function usageExit(err: CommanderError): never {
  process.exit(err.exitCode === 0 ? 0 : 2);
}

export function register(program: Command): void {
  const pane = program
    .command('pane')
    .description("herdr-compatible pane reports (for herdr's integration scripts)")
    .exitOverride(usageExit);

  const common = (c: Command) =>
    c
      .argument('[pane_id]', 'the pane: HERDR_PANE_ID / NERDR_TAB (defaults to them)')
      .requiredOption('--source <id>', 'stable reporter id; seq numbers are tracked per source')
      .requiredOption('--agent <label>', 'agent label')
      .option('--seq <n>', 'ordering number (u64): only a greater one than the last is applied')
      .exitOverride(usageExit)
      .configureHelp({ showGlobalOptions: false });

  common(pane.command('report-agent').description("report an agent's state"))
    .requiredOption('--state <state>', 'idle | working | blocked | unknown')
    .option('--message <text>', 'what the agent is doing or blocked on')
    .option('--agent-session-id <id>', "the agent's conversation id")
    .option('--agent-session-path <path>', "the agent's session file")
    .action((paneId: string | undefined, flags: Flags) => run(program, 'report-agent', 'pane.report_agent', paneId, flags));

  common(pane.command('report-agent-session').description("report an agent's conversation id"))
    .option('--agent-session-id <id>', "the agent's conversation id")
    .option('--agent-session-path <path>', "the agent's session file")
    .option('--session-start-source <source>', 'startup | resume | clear | compact | branch | new | fork | select')
    .action((paneId: string | undefined, flags: Flags) => run(program, 'report-agent-session', 'pane.report_agent_session', paneId, flags));

  common(pane.command('release-agent').description('release an agent reported by this source'))
    .action((paneId: string | undefined, flags: Flags) => run(program, 'release-agent', 'pane.release_agent', paneId, flags));
}
