// What the supervisor makes a window from (`createWindow`) or starts again in one (`respawn`):
// the API fills these from a request, `nerdr restore` from a saved session. create.ts builds the
// tmux command line from the same type (its NewWindowRequest).

import { nerdrBin } from '../paths.js';
import type { WatchedAgent } from './agent.js';

export interface WindowSpec {
  /** The agent it runs ('unknown' for `--cmd`): a launched agent is not probed. */
  agent: string;
  /** The window's name; control characters are dropped, empty means the agent's name. */
  name: string;
  /** An absolute folder. */
  cwd: string;
  /** The user session it is linked into: a name or `$id`. */
  session: string;
  argv: string[];
  /** The user's own arguments, without nerdr's wiring: what `nerdr restore` relaunches with. */
  userArgs: string[];
  /** The environment of the process that asked (src/supervisor/create.ts callerEnvironment filters it). */
  callerEnv: Record<string, unknown>;
  /** The launch's own variables (its hook wiring); they win over nerdr's. Unused for a terminal. */
  env: Record<string, string>;
  /** A watched window is tagged, given a secret and watched; a terminal (`nerdr term`) is not. */
  watched: boolean;
  /** Index in the user's session (restore puts windows back where they were). */
  index?: number | undefined;
  /** The worktree nerdr made for the window (`nerdr new --worktree`): kept as window options. */
  worktree?: { path: string; branch: string; base: string } | null | undefined;
  /** [worktrees] setup: run in the pane before the program; a failure leaves the pane's output and says so. */
  setup?: { command: string; hint: string } | null | undefined;
  /** The conversation the launch resumes ('launch'), or one guessed for it. */
  conversation?: { id: string; from: 'launch' | 'guess' } | null | undefined;
  /** A note for `ls` (e.g. "resume failed: started a new conversation"). */
  note?: string | undefined;
  /** The agent windows that asked for it, nearest first (ids, src/supervisor/control.ts childLineage); empty when a person did. */
  lineage?: string[] | undefined;
  /** The quiet rule's wait for a `--cmd` window (ms, 0 = off), kept on the window as @nerdr_idle_after. Null: the default. */
  idleAfterMs?: number | null | undefined;
}

export interface RespawnSpec {
  argv: string[];
  callerEnv: Record<string, unknown>;
  env: Record<string, string>;
  /** The conversation the new program resumes. */
  conversationId?: string | undefined;
  note?: string | undefined;
}

export interface CreatedWindow {
  window: string;
  pane: string;
  /** nerdr's id of the window (@nerdr_pane). */
  id: string;
  agent: string;
  /** The window as the supervisor now watches it; null for a terminal. */
  watched: WatchedAgent | null;
}

/** The environment of a watched agent's pane: nerdr's variables and herdr's, for its hooks. */
export function agentEnv(agent: string, secret: string, socketPath: string): Record<string, string> {
  return {
    NERDR_SOCKET: socketPath,
    NERDR_TAB: secret,
    NERDR_BIN: nerdrBin,
    NERDR_AGENT: agent,
    HERDR_ENV: '1',
    HERDR_PANE_ID: secret,
    HERDR_SOCKET_PATH: socketPath,
    HERDR_BIN_PATH: nerdrBin,
  };
}
