// The `nerdr` command: global options, one file per command, errors printed in one place.
// Only the module of the command being run is loaded (agents' hooks call `nerdr pane …` with
// short timeouts); help and unknown commands load them all.

import { Command, CommanderError } from 'commander';
import { report } from '../errors.js';
import { NERDR_VERSION } from '../version.js';
import { visible } from '../text.js';

type Register = (program: Command) => void;

/**
 * Command name → a loader of the module that registers it. Each import is written out (not built
 * from a name) so the bundler makes each command its own chunk (scripts/bundle.mjs).
 */
const MODULES: Record<string, () => Promise<{ register: Register }>> = {
  new: () => import('./new.js'),
  term: () => import('./new.js'),
  ls: () => import('./ls.js'),
  status: () => import('./ls.js'),
  read: () => import('./read.js'),
  explain: () => import('./explain.js'),
  send: () => import('./send.js'),
  inbox: () => import('./inbox.js'),
  answer: () => import('./inbox.js'),
  wait: () => import('./send.js'),
  next: () => import('./next.js'),
  focus: () => import('./next.js'),
  attach: () => import('./next.js'),
  stop: () => import('./next.js'),
  hibernate: () => import('./hibernate.js'),
  wake: () => import('./hibernate.js'),
  supervise: () => import('./supervise.js'),
  supervisor: () => import('./supervise.js'),
  doctor: () => import('./doctor.js'),
  tmux: () => import('./tmux.js'),
  demo: () => import('./demo.js'),
  detect: () => import('./detect.js'),
  manifests: () => import('./manifests.js'),
  pane: () => import('./pane.js'),
  integrations: () => import('./integrations.js'),
  dash: () => import('./dash.js'),
  why: () => import('./why.js'),
  order: () => import('./why.js'),
  search: () => import('./search.js'),
  usage: () => import('./usage.js'),
  restore: () => import('./restore.js'),
  worktree: () => import('./worktree.js'),
  walkthrough: () => import('./walkthrough.js'),
  review: () => import('./review.js'),
  events: () => import('./events.js'),
  skill: () => import('./skill.js'),
  fleet: () => import('./fleet.js'),
  selftest: () => import('./selftest.js'),
  web: () => import('./web.js'),
};

/** The command word: the first argument that is not a global option or its value. */
export function commandWord(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-L' || a === '-S' || a === '--session') i++;
    else if (/^-[LS]./.test(a) || a.startsWith('--session=')) continue;
    else if (a.startsWith('-')) return undefined; // --help, --version
    else return a;
  }
  return undefined;
}

export async function buildProgram(args: string[] = []): Promise<Command> {
  const program = new Command('nerdr');
  program
    .description('which of your coding agents needs you: lights for agents running in tmux')
    .version(NERDR_VERSION)
    .option('-L <name>', 'use the tmux server with this socket name (like tmux -L)')
    .option('-S <path>', 'use the tmux server at this socket path (like tmux -S)')
    .showHelpAfterError()
    .exitOverride();
  const word = commandWord(args);
  // `nerdr --version` needs no command: loading them all took it from 0.1 to 0.5 s
  const versionOnly = word === undefined && args.some((a) => a === '-V' || a === '--version');
  const wanted = versionOnly ? [] : word && MODULES[word] ? [MODULES[word]!] : Object.values(MODULES);
  // a module registers all its commands: help (every module) loads each once
  const seen = new Set<Register>();
  for (const load of wanted) {
    const { register } = await load();
    if (seen.has(register)) continue;
    seen.add(register);
    register(program);
  }
  program.commands.forEach(function exit(c: Command): void {
    c.exitOverride();
    c.commands.forEach(exit);
  });
  return program;
}

export async function main(argv: string[]): Promise<void> {
  // `nerdr ls | head`: a reader that stops early is no error
  for (const out of [process.stdout, process.stderr]) {
    out.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
      throw err;
    });
  }
  // herdr's `pane …` grammar is not commander's (a pane id may start with `-`; herdr's exit
  // codes): pane.ts parses it whole, before commander could read `-V…` or `-L…` in it.
  if (commandWord(argv.slice(2)) === 'pane') {
    const { runPane } = await import('./pane.js');
    process.exitCode = await runPane(argv.slice(2));
    return;
  }
  try {
    const program = await buildProgram(argv.slice(2));
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    // no stack for users: a NerdrError says what failed and the fix; anything else is a bug,
    // one line, with the stack only under NERDR_DEBUG=1
    const out = report(err, process.env.NERDR_DEBUG === '1');
    process.stderr.write(visible(out.text, { lines: true }));
    process.exitCode = out.exit;
  }
}
