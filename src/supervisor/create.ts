// Building the one command line that creates an agent window: made, tagged and linked in one
// line, so tmux runs it whole and no other command (or output) can come between its steps.
// The window is created in _nerdr (so no byte of its output is missed), tagged, kept on
// exit, then linked into the user's session without selecting anything there.

import { createHash, randomBytes } from 'node:crypto';
import { command, escapeFormat } from '../tmux/quote.js';
import { EXIT_STATUS_OPTION, EXIT_UNCONFIRMED_OPTION, HIDDEN_SESSION, IDLE_AFTER_OPTION } from './discover.js';
import type { WindowSpec } from './window-spec.js';

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

/**
 * What the command line is built from: the window as asked for (window-spec.ts), its `env` now the
 * whole environment the window gets (the caller's, nerdr's, the launch's), with its id, the hash of
 * its secret, and the tmux binary for the exit guard (exitGuardArgv).
 */
export type NewWindowRequest = Omit<WindowSpec, 'callerEnv' | 'conversation' | 'note'> & {
  id: string;
  secretHash: string;
  exitGuard?: string | null | undefined;
};

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
 * What the exit guard prints once its program has exited: an OSC that terminals and tmux
 * ignore. When the supervisor reads it in the pane's %output, tmux has read and sent it every
 * byte before it.
 */
export const EXIT_MARKER = '\x1b]7717;nerdr-exit\x07';

/** Longest the guard waits for the supervisor: longer than pause-after (2 s, PAUSE_AFTER_S in supervisor.ts), see below. */
export const EXIT_GUARD_WAIT_S = 6;

/** The wait-for channel the guard of pane `%N` waits on. */
export function exitChannel(paneId: string): string {
  return `nerdr-exit-${paneId.replace(/^%/, '')}`;
}

/**
 * The exit guard (TmuxFeatures.exitGuard, every version): the pane's process stays alive,
 * printing nothing more, from the program's exit until the supervisor has its last output.
 * tmux can drop what a pane's program wrote just before it exited when the process is gone
 * first (3.7 rarely, under load; before 3.7 about 1 window in 6); before 3.3 a remain-on-exit pane that dies while the supervisor is still owed
 * its output crashes the server. The guard prints EXIT_MARKER and waits on exitChannel() for
 * the supervisor, which signals it when the marker reaches it; at most EXIT_GUARD_WAIT_S, after
 * which tmux has dropped (pause-after) any output the supervisor was still owed. Then it exits
 * with the program's status, which it has first put in the pane's EXIT_STATUS_OPTION; when its
 * own limit released it rather than the supervisor, it marks the pane EXIT_UNCONFIRMED_OPTION first. `set -m`
 * gives the program its own process group and the terminal, as if it ran alone (the pane's
 * current command is the program's). The tmux binary and the argv are positional parameters: no
 * user text is in the script.
 */
export const EXIT_GUARD_SCRIPT =
  't=$1; shift; set -m; "$@"; r=$?; ' +
  `"$t" set-option -p -t "$TMUX_PANE" ${EXIT_STATUS_OPTION} "$r" </dev/null >/dev/null 2>&1; ` +
  "printf '\\033]7717;nerdr-exit\\007'; " +
  '"$t" wait-for "nerdr-exit-${TMUX_PANE#%}" </dev/null >/dev/null 2>&1 & w=$!; ' +
  `{ sleep ${EXIT_GUARD_WAIT_S}; "$t" set-option -p -t "$TMUX_PANE" ${EXIT_UNCONFIRMED_OPTION} 1; kill "$w"; } </dev/null >/dev/null 2>&1 & k=$!; ` +
  'wait "$w"; kill -- "-$k" 2>/dev/null; exit "$r"';

export function exitGuardArgv(tmuxBin: string, argv: string[]): string[] {
  return ['/bin/sh', '-c', EXIT_GUARD_SCRIPT, 'nerdr-guard', tmuxBin, ...argv];
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
  const bare = ['env', ...UNSET_VARS.flatMap((v) => ['-u', v]), '--', ...program];
  const argv = req.exitGuard ? exitGuardArgv(req.exitGuard, bare) : bare;
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
    if (req.lineage && req.lineage.length > 0) {
      cmds.push(
        command('set-option', '-w', '-t', here, '@nerdr_parent', req.lineage[0]!),
        command('set-option', '-w', '-t', here, '@nerdr_lineage', req.lineage.join(' ')),
      );
    }
    if (req.idleAfterMs !== undefined && req.idleAfterMs !== null) {
      cmds.push(command('set-option', '-w', '-t', here, IDLE_AFTER_OPTION, String(req.idleAfterMs)));
    }
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
export function respawnCommands(
  paneId: string,
  windowId: string,
  cwd: string,
  argv: string[],
  env: Record<string, string>,
  secretHash: string,
  exitGuard: string | null = null,
): string[] {
  const e = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const bare = ['env', ...UNSET_VARS.flatMap((v) => ['-u', v]), '--', ...argv];
  return [
    command('set-option', '-w', '-t', windowId, '@nerdr_secret_hash', secretHash),
    command('set-option', '-w', '-t', windowId, '@nerdr_argv', JSON.stringify(argv)),
    // the last program's status is not the next one's
    command('set-option', '-p', '-q', '-u', '-t', paneId, EXIT_STATUS_OPTION),
    command('respawn-pane', '-k', '-t', paneId, '-c', escapeFormat(cwd), ...e, ...(exitGuard ? exitGuardArgv(exitGuard, bare) : bare)),
  ];
}
