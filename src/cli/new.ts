// `nerdr new <agent>` and `nerdr term`: a window running an agent (watched) or a plain shell.

import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { AGENTS, installHint, knownAgents } from '../integrations/agents.js';
import { call, callerSecret, callerSession, ensureSupervisor, socketError, tmuxSocket } from './context.js';
import { request, SocketRequestError } from '../supervisor/socket/index.js';
import { tmux } from '../tmux/server.js';
import { printJson } from './print.js';
import { onPath, planLaunch } from '../integrations/plan.js';

interface NewOpts {
  name?: string;
  cwd?: string;
  target?: string;
  cmd?: string;
  hooks?: boolean;
  detach?: boolean;
  json?: boolean;
  worktree?: string;
  base?: string;
  idleAfter?: string;
  prompt?: string;
}

/** Words of sh that are not programs on PATH (builtins, keywords). */
const SH_BUILTINS = new Set(
  ': . [ alias bg break cd command continue echo eval exec exit export false fg getopts hash jobs kill printf pwd read readonly return set shift test times trap true type ulimit umask unalias unset wait if then else elif fi for while until do done case esac { } ! function select local source'.split(' '),
);

/**
 * The program a `--cmd` line starts, when that is plain to see: its first word, after VAR=value
 * assignments and `exec`/`nohup`/`command`. Null when the line starts with shell syntax (quotes,
 * `$`, redirections) or a builtin: then only the shell knows, and nothing is checked.
 */
export function commandProgram(line: string): string | null {
  const words = line.trim().split(/\s+/);
  let i = 0;
  while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!) || ['exec', 'nohup', 'command'].includes(words[i]!))) i++;
  const w = words[i];
  if (!w || /[^A-Za-z0-9_./+@%:,~-]/.test(w) || SH_BUILTINS.has(w)) return null;
  return w;
}

/**
 * The quiet rule's wait for a `--cmd` window, in ms: `--idle-after S`, else config.toml's
 * `[detect] idle_after` (docs/state-rules.md, "The quiet rule").
 */
async function idleAfterMs(given: string | undefined): Promise<number> {
  const { idleAfterProblem, loadConfig } = await import('../config.js');
  const { configDir } = await import('../paths.js');
  if (given === undefined) return Math.round(loadConfig(configDir()).config.detect.idle_after * 1000);
  const s = given.trim() === '' ? NaN : Number(given);
  const problem = idleAfterProblem(s);
  if (problem !== null) throw new NerdrError(`--idle-after ${problem.replace(/\(got .*\)$/, `(got "${given}")`)}`, 'e.g. --idle-after 5, or --idle-after 0 to switch the quiet rule off');
  return Math.round(s * 1000);
}

function resolveCwd(dir: string | undefined): string {
  const cwd = path.resolve(dir ?? process.cwd());
  try {
    if (!statSync(cwd).isDirectory()) throw new Error();
  } catch {
    // Node hands nerdr its arguments and folder as text: bytes that are not UTF-8 arrive as U+FFFD
    if (cwd.includes('\uFFFD')) {
      throw new NerdrError(
        `the folder name ${JSON.stringify(cwd)} is not UTF-8 text (\uFFFD marks the bytes that are not), so nerdr cannot name it to tmux exactly`,
        'rename the folder, or start the agent through a link with a UTF-8 name: ln -s "<folder>" ~/work-link; nerdr new … --cwd ~/work-link',
      );
    }
    throw new NerdrError(`--cwd ${cwd} is not a folder`, 'pass an existing folder');
  }
  return cwd;
}

export interface CreateParams {
  agent: string;
  name: string;
  cwd: string;
  argv: string[];
  /** The user's own arguments (kept on the window so `nerdr restore` can relaunch). */
  userArgs?: string[];
  /** Extra environment for the agent (its hook wiring). */
  env?: Record<string, string>;
  /** The conversation id nerdr chose at launch (`claude --session-id`). */
  conversationId?: string | undefined;
  watched: boolean;
  target?: string | undefined;
  detach?: boolean | undefined;
  /** The worktree the window runs in, kept on it as options (`nerdr new --worktree`). */
  worktree?: { path: string; branch: string; base: string } | undefined;
  /** [worktrees] setup, run in the window before the program. */
  setup?: { command: string; hint: string } | undefined;
  /** `--cmd`: the quiet rule's wait (ms, 0 = off), kept on the window. */
  idleAfterMs?: number | undefined;
}

/**
 * Asks the supervisor for the window; selects it for the calling client unless detached.
 * `noWindow` runs when the request surely made no window (refused, or never sent); not when the
 * supervisor did not answer in time, for it may make the window still.
 */
export async function createWindow(cmd: Command, p: CreateParams, noWindow?: () => Promise<void>): Promise<{ window: string; pane: string; session: string }> {
  let sock: string;
  let session: string;
  let r: { window: string; pane: string };
  try {
    sock = await tmuxSocket(cmd);
    session = await callerSession(sock, p.target);
    const socketFile = await ensureSupervisor(sock);
    // the program runs with this shell's environment (the supervisor strips what is tmux's or nerdr's)
    r = (await request(socketFile, 'nerdr.new', { ...p, session, callerEnv: process.env, caller: callerSecret() }, { timeoutMs: 15_000 })) as { window: string; pane: string };
  } catch (err) {
    const sure = !(err instanceof SocketRequestError) || err.response !== undefined || err.code === 'server_not_running' || err.code === 'connection_failed';
    if (sure && noWindow) await noWindow();
    if (err instanceof SocketRequestError) throw socketError(err);
    throw err;
  }
  const inCaller = process.env.TMUX && process.env.TMUX_PANE && !p.target;
  if (!p.detach && inCaller) await tmux(sock, ['select-window', '-t', `${session}:${r.window}`]);
  return { ...r, session };
}

/** Makes (or finds again) the worktree of `branch` for a new window; its setup runs only when made now. */
async function worktreeFor(cwd: string, branch: string, base: string | undefined) {
  const { prepareWorktree, discardWorktree } = await import('../worktrees/create.js');
  const { WorktreeRegistry } = await import('../worktrees/registry.js');
  const { loadConfig } = await import('../config.js');
  const { configDir, stateDir } = await import('../paths.js');
  const config = loadConfig(configDir()).config.worktrees;
  const registry = new WorktreeRegistry(stateDir());
  const w = await prepareWorktree({ cwd, branch, base, config, registry });
  for (const n of w.notes) process.stderr.write(`nerdr: ${n}\n`);
  /** When no window comes of it, a worktree made now goes again: nothing is left behind. */
  const discard = async (): Promise<void> => {
    const gone = await discardWorktree(w, registry);
    if (gone.length) process.stderr.write(`nerdr: no window was made, so ${gone.join(' and ')} made for it ${gone.length === 1 ? 'was' : 'were'} removed again\n`);
  };
  return { worktree: { path: w.path, branch: w.branch, base: w.base }, setup: w.created ? config.setup : null, discard };
}

/** `--prompt TEXT` / `--prompt -` (stdin): the first message, checked as `nerdr send` checks one. */
async function firstPrompt(given: string): Promise<string> {
  const { checkWords, readStdin, refuseUndeliverable } = await import('./send.js');
  const { MAX_MESSAGE_BYTES } = await import('../supervisor/messages.js');
  let text = given;
  if (given === '-') {
    if (process.stdin.isTTY) throw new NerdrError('--prompt -: nothing on stdin', 'pipe the prompt: echo "fix the tests" | nerdr new claude --prompt -', { code: 'invalid_option' });
    const bytes = await readStdin();
    refuseUndeliverable(bytes, 'on stdin');
    text = bytes.toString('utf8').replace(/\n$/, '');
  } else checkWords([given]);
  if (!text.trim()) throw new NerdrError('--prompt is empty', 'nerdr new claude --prompt "fix the failing test"', { code: 'invalid_option' });
  if (Buffer.byteLength(text) > MAX_MESSAGE_BYTES) throw new NerdrError(`--prompt is ${Buffer.byteLength(text)} bytes; at most ${MAX_MESSAGE_BYTES} are accepted`, 'put it in a file and give its path in a shorter prompt', { code: 'too_large' });
  return text;
}

export function register(program: Command): void {
  program
    .command('new [agent] [args...]')
    .description(`open a window running an agent, watched by nerdr (agents: ${knownAgents().join(', ')})`)
    .option('--name <name>', 'window name (default: the agent)')
    .option('--cwd <dir>', 'working folder (default: here)')
    .option('-t, --target <session>', 'tmux session to add the window to (default: the current one)')
    .option('--cmd <command>', 'run this shell command instead of a known agent; its agent is found from its processes')
    .option('--idle-after <seconds>', 'with --cmd, for a program no manifest knows: idle once its output is quiet this long with the cursor on an input line (default 3, or config [detect] idle_after; 0: off)')
    .option('--no-hooks', 'do not wire the agent\'s hooks (screen detection only)')
    .option('-d, --detach', 'do not switch to the new window')
    .option('--worktree <branch>', 'run it in a git worktree of this branch (made from --base when new), beside the repository')
    .option('--base <ref>', 'with --worktree: the branch or commit a new branch starts from (default: HEAD)')
    .option('--prompt <text>', 'its first message, typed in once it first waits at its prompt (a queued message: `nerdr send --status ID`); "-": read it from stdin')
    .option('--json', 'print JSON')
    .action(async (agentName: string | undefined, args: string[], opts: NewOpts, cmd: Command) => {
      // read and checked before any window is made: a bad prompt leaves nothing behind
      const prompt = opts.prompt !== undefined ? await firstPrompt(opts.prompt) : null;
      if (opts.base !== undefined && opts.worktree === undefined) throw new NerdrError('--base goes with --worktree BRANCH', 'nerdr new <agent> --worktree BRANCH --base REF');
      if (opts.idleAfter !== undefined && opts.cmd === undefined) throw new NerdrError('--idle-after goes with --cmd: a known agent is read by its manifest', "nerdr new --cmd 'CMD …' --idle-after 5");
      const idleAfter = opts.cmd !== undefined ? await idleAfterMs(opts.idleAfter) : undefined;
      let agent: string;
      let argv: string[];
      if (opts.cmd !== undefined) {
        if (agentName) throw new NerdrError('give either an agent or --cmd, not both', "nerdr new claude, or nerdr new --cmd 'aider --yes'", { code: 'invalid_option' });
        if (!opts.cmd.trim()) throw new NerdrError('--cmd needs a command', "nerdr new --cmd 'aider --yes'", { code: 'invalid_option' });
        agent = 'unknown';
        argv = ['/bin/sh', '-c', opts.cmd];
      } else {
        if (!agentName) throw new NerdrError('which agent?', `name one: nerdr new ${knownAgents().join('|')}, or nerdr new --cmd 'CMD …'`);
        const spec = AGENTS[agentName];
        if (!spec) throw new NerdrError(`unknown agent "${agentName}"`, `known agents: ${knownAgents().join(', ')}; for anything else use --cmd 'CMD …'`);
        if (!onPath(spec.command[0]!)) {
          throw new NerdrError(`${spec.description} is not installed here (\`${spec.command[0]}\` is not on PATH)`, `${installHint(spec)}; or try the simulated agent: nerdr demo`);
        }
        agent = spec.id;
        argv = [...spec.command, ...args];
      }
      let cwd = resolveCwd(opts.cwd);
      const program = opts.cmd !== undefined ? commandProgram(opts.cmd) : null;
      // the pane would only show "not found" in a dead window; a path is looked up from the
      // window's folder, as the shell in the pane will
      const checkProgram = (dir: string): void => {
        const where = program?.startsWith('~/') ? path.join(os.homedir(), program.slice(2)) : program?.includes('/') ? path.resolve(dir, program) : program;
        if (program && where && !onPath(where)) {
          throw new NerdrError(`--cmd: \`${program}\` is not installed here (not on PATH${program.includes('/') ? ', or not an executable file' : ''}); no window was made`, 'install it, or give its full path');
        }
      };
      // before a worktree is made, unless the program is a path inside the window's folder
      const inFolder = program !== null && program.includes('/') && !program.startsWith('~/') && !path.isAbsolute(program);
      if (!inFolder) checkProgram(cwd);
      const wt = opts.worktree !== undefined ? await worktreeFor(cwd, opts.worktree, opts.base) : null;
      if (wt) cwd = wt.worktree.path;
      let env: Record<string, string> = {};
      let conversationId: string | undefined;
      try {
        if (inFolder) checkProgram(cwd);
        if (agent !== 'unknown' && agent !== 'demo') {
          const plan = await planLaunch(agent, args, cwd, opts.hooks !== false);
          argv = plan.argv;
          env = plan.env;
          conversationId = plan.conversationId;
          for (const n of plan.notes) process.stderr.write(`nerdr: ${n}\n`);
        }
      } catch (err) {
        await wt?.discard();
        throw err;
      }
      const name = opts.name ?? wt?.worktree.branch ?? (opts.cmd !== undefined ? opts.cmd.trim().split(/\s+/)[0]!.split('/').pop()! : agent);
      const r = await createWindow(cmd, {
        agent,
        name,
        cwd,
        argv,
        userArgs: args,
        env,
        conversationId,
        watched: true,
        target: opts.target,
        detach: opts.detach,
        ...(idleAfter !== undefined ? { idleAfterMs: idleAfter } : {}),
        ...(wt ? { worktree: wt.worktree } : {}),
        ...(wt?.setup ? { setup: { command: wt.setup, hint: `Fix it in ${cwd}, run the setup there yourself, then start the agent: nerdr new ${agentName ?? `--cmd …`} --worktree ${opts.worktree} (the worktree stays).` } } : {}),
      }, wt?.discard);
      let queued: { id: string; position: number } | null = null;
      if (prompt !== null) {
        try {
          queued = await call<{ id: string; position: number }>(cmd, 'nerdr.send', { target: r.window, message: prompt, caller: callerSecret() });
        } catch (err) {
          const e = err as NerdrError;
          throw new NerdrError(`${r.window} runs, but its first message was not queued: ${e.message}`, `send it yourself: nerdr send ${r.window} "…"`, { code: e.code });
        }
      }
      if (opts.json) printJson({ ...r, agent, name, worktree: wt?.worktree.path ?? null, branch: wt?.worktree.branch ?? null, base: wt?.worktree.base ?? null, prompt: queued });
      else process.stdout.write(`${r.window}\n`);
    });

  program
    .command('term [command...]')
    .description('open a plain terminal window: not watched, no nerdr environment')
    .option('--name <name>', 'window name')
    .option('--cwd <dir>', 'working folder (default: here)')
    .option('-t, --target <session>', 'tmux session (default: the current one)')
    .option('-d, --detach', 'do not switch to the new window')
    .action(async (command: string[], opts: NewOpts, cmd: Command) => {
      const shell = process.env.SHELL || '/bin/sh';
      const argv = command.length > 0 ? command : [shell];
      const r = await createWindow(cmd, {
        agent: 'term',
        name: opts.name ?? path.basename(argv[0]!),
        cwd: resolveCwd(opts.cwd),
        argv,
        watched: false,
        target: opts.target,
        detach: opts.detach,
      });
      process.stdout.write(`${r.window}\n`);
    });
}
