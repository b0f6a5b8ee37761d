// Building the one command line that creates an agent window: made, tagged and linked in one
// line, so tmux runs it whole and no other command (or output) can come between its steps.
// The window is created in _nerdr (so no byte of its output is missed), tagged, kept on
// exit, then linked into the user's session without selecting anything there.

import { createHash, randomBytes } from 'node:crypto';
import { command, escapeFormat } from '../tmux/quote.js';
import { HIDDEN_SESSION } from './discover.js';

/** Variables a nested agent must not inherit: they would make it think it runs inside another agent. */
export const UNSET_VARS = ['CODEX_THREAD_ID', 'CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'NERDR_AGENT_PARENT'];

/**
 * The environment of the process that asked for a window, as the window's program gets it: an
 * exported variable, an activated virtualenv, the project's PATH. Without tmux's own (the pane
 * gets its own TMUX, TMUX_PANE), nerdr's and herdr's (the window's own replace them) and the
 * agent-nesting variables; only names tmux's -e takes.
 */
export function callerEnvironment(env: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (typeof v !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || v.includes('\0')) continue;
    if (k === 'TMUX' || k === 'TMUX_PANE' || k.startsWith('NERDR_') || k.startsWith('HERDR_') || UNSET_VARS.includes(k)) continue;
    out[k] = v;
  }
  return out;
}

export interface NewWindowRequest {
  agent: string;
  name: string;
  cwd: string;
  /** Target user session: a name or `$id`. */
  session: string;
  argv: string[];
  /** The user's own arguments, without nerdr's wiring: what `nerdr restore` relaunches with. */
  userArgs: string[];
  /** Extra environment (e.g. NERDR_* for watched agents); empty for `nerdr term`. */
  env: Record<string, string>;
  /** Watched windows are tagged @nerdr_*; plain terminals are not. */
  watched: boolean;
  /** Window index in the user's session (nerdr restore puts windows back where they were). */
  index?: number | undefined;
  id: string;
  secretHash: string;
  /** The worktree nerdr made for the window (`nerdr new --worktree`): kept as window options. */
  worktree?: { path: string; branch: string; base: string } | null | undefined;
  /** [worktrees] setup: run in the pane before the program; a failure leaves the pane's output and says so. */
  setup?: { command: string; hint: string } | null | undefined;
}

/**
 * The pane's program when a setup runs first: the setup shows in the window, and when it fails
 * the agent is not started and the window (remain-on-exit) keeps its output and a line saying so.
 * The setup command, the hint and the argv are positional parameters: no user text is in the script.
 */
export const SETUP_SCRIPT =
  's=$1; h=$2; shift 2; printf \'nerdr: setup: %s\\n\' "$s"; /bin/sh -c "$s"; r=$?; ' +
  'if [ "$r" -ne 0 ]; then printf \'\\nnerdr: the setup failed (exit %s), so the agent was not started. %s\\n\' "$r" "$h"; exit "$r"; fi; ' +
  'exec "$@"';

export function setupArgv(setup: { command: string; hint: string }, argv: string[]): string[] {
  return ['/bin/sh', '-c', SETUP_SCRIPT, 'nerdr-setup', setup.command, setup.hint, ...argv];
}

/**
 * A window's secret (NERDR_TAB / HERDR_PANE_ID): 32 base64url characters. Never one that starts
 * with `-`: herdr's scripts pass it as the first argument of `nerdr pane …`, where a leading `-`
 * would read as an option in other CLIs (1 in 64 base64url strings starts with one).
 */
export function newSecret(): string {
  for (;;) {
    const s = randomBytes(24).toString('base64url');
    if (!s.startsWith('-')) return s;
  }
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function newAgentId(): string {
  return 'a' + randomBytes(5).toString('hex');
}

function sessionTarget(session: string, index?: number): string {
  const at = index === undefined ? '' : String(index);
  return session.startsWith('$') ? `${session}:${at}` : `=${session}:${at}`;
}

export function newWindowCommands(req: NewWindowRequest): string[] {
  const env = Object.entries(req.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const program = req.setup ? setupArgv(req.setup, req.argv) : req.argv;
  const argv = ['env', ...UNSET_VARS.flatMap((v) => ['-u', v]), '--', ...program];
  const here = `=${HIDDEN_SESSION}:`;
  // Without -d the new window becomes _nerdr's current window, so `=_nerdr:` names it for
  // the rest of the line. _nerdr has no user client, so nobody sees that selection.
  const cmds = [
    command('new-window', '-t', here, '-n', escapeFormat(req.name), '-c', escapeFormat(req.cwd), ...env, '-P', '-F', '#{window_id} #{pane_id} #{pane_pid}', ...argv),
    command('set-option', '-w', '-t', here, 'remain-on-exit', 'on'),
    command('set-option', '-w', '-t', here, 'automatic-rename', 'off'),
  ];
  if (req.watched) {
    cmds.push(
      command('set-option', '-w', '-t', here, '@nerdr_agent', req.agent),
      command('set-option', '-w', '-t', here, '@nerdr_secret_hash', req.secretHash),
      command('set-option', '-w', '-t', here, '@nerdr_cwd', req.cwd),
      command('set-option', '-w', '-t', here, '@nerdr_argv', JSON.stringify(req.argv)),
      command('set-option', '-w', '-t', here, '@nerdr_args', JSON.stringify(req.userArgs)),
      command('set-option', '-w', '-t', here, '@nerdr_state', 'unknown'),
      command('set-option', '-p', '-t', here, '@nerdr_pane', req.id),
    );
    // set-option without -F stores the text as it is: a branch holding #{…} or $(…) stays text
    if (req.worktree) {
      cmds.push(
        command('set-option', '-w', '-t', here, '@nerdr_worktree', req.worktree.path),
        command('set-option', '-w', '-t', here, '@nerdr_branch', req.worktree.branch),
        command('set-option', '-w', '-t', here, '@nerdr_base', req.worktree.base),
      );
    }
  }
  cmds.push(command('link-window', '-d', '-s', here, '-t', sessionTarget(req.session, req.index)));
  if (!req.watched) cmds.push(command('unlink-window', '-t', here));
  return cmds;
}

/** A new program in an existing agent pane: respawn-pane keeps the pane id, window and options. */
export function respawnCommands(paneId: string, windowId: string, cwd: string, argv: string[], env: Record<string, string>, secretHash: string): string[] {
  const e = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return [
    command('set-option', '-w', '-t', windowId, '@nerdr_secret_hash', secretHash),
    command('set-option', '-w', '-t', windowId, '@nerdr_argv', JSON.stringify(argv)),
    command('respawn-pane', '-k', '-t', paneId, '-c', escapeFormat(cwd), ...e, 'env', ...UNSET_VARS.flatMap((v) => ['-u', v]), '--', ...argv),
  ];
}
