// What the extras ask the supervisor: the agent the caller runs in, and the folders of the
// agents in the caller's tmux session. The supervisor is asked only if it already runs:
// these commands must work (with less detail) when it does not.

import { existsSync } from 'node:fs';
import { serverFiles } from '../paths.js';
import { request } from '../supervisor/socket/index.js';
import type { AgentRow } from '../protocol/index.js';
import { resolveSocket, tmux, type ServerChoice } from '../tmux/server.js';

/** The rows of `nerdr.ls`, or null when no supervisor answers for this tmux server. */
export async function listAgents(choice: ServerChoice, env: NodeJS.ProcessEnv = process.env): Promise<{ sock: string; agents: AgentRow[] } | null> {
  let sock: string;
  try {
    sock = resolveSocket(choice, env);
  } catch {
    return null;
  }
  const file = serverFiles(sock, env).socket;
  if (!existsSync(file)) return null;
  try {
    const r = (await request(file, 'nerdr.ls', {}, { timeoutMs: 2000 })) as { agents?: AgentRow[] };
    return { sock, agents: Array.isArray(r.agents) ? r.agents : [] };
  } catch {
    return null;
  }
}

export interface Caller {
  /** The agent kind (claude, codex…), from NERDR_AGENT or the supervisor. */
  agent: string | null;
  name: string | null;
  window: string | null;
  pane: string | null;
  conversation: string | null;
}

/** The agent whose window the caller runs in, as far as can be told. */
export async function whoAmI(choice: ServerChoice, env: NodeJS.ProcessEnv = process.env): Promise<Caller> {
  return (await callerWindow(choice, env)).me;
}

/** whoAmI, with the supervisor's row for the caller's window (its folder, worktree…) when there is one. */
export async function callerWindow(choice: ServerChoice, env: NodeJS.ProcessEnv = process.env): Promise<{ me: Caller; row: AgentRow | null }> {
  const pane = env.TMUX_PANE || null;
  const me: Caller = { agent: env.NERDR_AGENT || null, name: null, window: null, pane, conversation: null };
  if (!pane && !choice.name && !choice.socket) return { me, row: null };
  const listed = await listAgents(choice, env);
  const row = listed?.agents.find((a) => a.pane === pane) ?? null;
  if (row) {
    me.agent = row.agent;
    me.name = row.name;
    me.window = row.window;
    me.conversation = row.conversationId;
  }
  return { me, row };
}

/**
 * The working folders of the agents in the caller's tmux session (the session of $TMUX_PANE,
 * else the attached one). Null when that cannot be known (no tmux, no supervisor).
 */
export async function sessionFolders(choice: ServerChoice, env: NodeJS.ProcessEnv = process.env): Promise<string[] | null> {
  const listed = await listAgents(choice, env);
  if (!listed) return null;
  let session: string | null = null;
  const pane = env.TMUX_PANE;
  if (pane) {
    const r = await tmux(listed.sock, ['display', '-p', '-t', pane, '#{session_name}']);
    if (r.code === 0) session = r.stdout.trim();
  }
  if (!session) {
    const r = await tmux(listed.sock, ['list-sessions', '-F', '#{session_name}\t#{session_attached}']);
    const rows = r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')).filter((s) => s[0] !== '_nerdr');
    session = (rows.find((s) => s[1] !== '0') ?? rows[0])?.[0] ?? null;
  }
  const mine = listed.agents.filter((a) => session === null || a.session === session || a.sessions?.includes(session));
  return [...new Set(mine.map((a) => a.cwd).filter(Boolean))];
}

export interface Scope {
  /** Null: every log. */
  folders: string[] | null;
  /** Working folder → nerdr agent names there. */
  names: Map<string, string[]>;
  /** Said on stderr when the scope is not what the user may think. */
  note: string | null;
}

/** Which logs `search` and `usage` read: every one with --all, else the session's agents' folders. */
export async function logScope(choice: ServerChoice, all: boolean, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<Scope> {
  const listed = await listAgents(choice, env);
  const names = new Map<string, string[]>();
  for (const a of listed?.agents ?? []) names.set(a.cwd, [...(names.get(a.cwd) ?? []), a.name]);
  if (all) return { folders: null, names, note: null };
  const folders = await sessionFolders(choice, env);
  if (folders === null) return { folders: [cwd], names, note: `no nerdr supervisor answered: searching the logs of ${cwd} only (--all for every log)` };
  if (folders.length === 0) return { folders: [cwd], names, note: `no agents in this tmux session: searching the logs of ${cwd} only (--all for every log)` };
  return { folders, names, note: null };
}
