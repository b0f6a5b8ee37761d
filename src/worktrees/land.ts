// `nerdr worktree land NAME…`: the branch merged (or rebased) onto its base in a temporary
// worktree, `[worktrees] check` run there, and only then the base moved; then the agent window
// stopped, the worktree removed and the branch deleted. Until the base moves nothing the user
// sees changes: a conflict, a failing check or a refusal leaves the base ref, the checkout that
// has it, the worktree and the branch exactly as they were. The CLI (src/cli/worktree.ts) stops
// windows and sends messages over the socket; this decides and runs git.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { NerdrError } from '../errors.js';
import type { AgentRow } from '../protocol/index.js';
import { visible } from '../text.js';
import { copyFiles } from './create.js';
import { branchExists, git, GitError, gitOk, gitWords, listWorktrees, operationInProgress } from './git.js';
import { checkRemoval, removalProblems, windowsIn } from './manage.js';
import type { WorktreeRecord } from './registry.js';
import { changedFiles } from './status.js';

export type LandFailure = 'conflict' | 'check' | 'refused';

/** Why a branch was not landed; nothing changed. `conflicts` or `checkTail` say more. */
export class LandRefused extends NerdrError {
  constructor(
    readonly kind: LandFailure,
    message: string,
    fix: string,
    readonly conflicts: string[] = [],
    readonly checkTail: string[] = [],
  ) {
    super(message, fix);
    this.name = 'LandRefused';
  }
}

export interface LandOptions {
  rebase: boolean;
  /** `[worktrees] check`: an argv, or null. */
  check: string[] | null;
  /** `[worktrees] copy`: brought into the temporary worktree too, so the check has `.env` & co. */
  copy: string[];
  /** `[worktrees] rm_ignored`. */
  allowIgnored: string[];
  /** The agent rows, for the windows in the worktree. */
  agents: readonly AgentRow[];
  /** Stops one agent window (the supervisor's stop, with the caller): 'gone' when it had closed already. Throws a NerdrError when it cannot. */
  stopWindow: (a: AgentRow) => Promise<'stopped' | 'gone'>;
  /** One line per step. */
  say: (line: string) => void;
  /** The window running this command, when it is an agent window: stopped last, after the clean-up it would otherwise cut short. */
  self?: string | null;
}

export interface Landed {
  name: string;
  branch: string;
  base: string;
  repo: string;
  how: 'fast-forward' | 'merge' | 'rebase';
  /** The base before and after. */
  from: string;
  to: string;
  /** Files the base changed in (from..to). */
  files: string[];
  /** Where the base was checked out and moved with `git merge --ff-only`, or null (only the ref moved). */
  checkout: string | null;
  stopped: string[];
  removed: boolean;
  branchDeleted: boolean;
  /** What was kept and why, when the base moved but the clean-up could not finish. */
  kept: string[];
  notes: string[];
}

/** The last `n` non-empty lines of a program's output, each shown through visible(). */
export function lastLines(text: string, n = 15): string[] {
  if (!text.trim()) return ['(no output)'];
  return text.replace(/\s+$/, '').split('\n').slice(-n).map((l) => visible(l.replace(/\r$/, '')));
}

/** The files of `dirty` a fast-forward over `incoming` would touch: the user's work in the way. */
export function inTheWay(dirty: readonly string[], incoming: readonly string[]): string[] {
  const inc = new Set(incoming);
  // a file replaced by a folder (or the other way) is in the way too
  const under = (a: string, b: string) => a.startsWith(`${b}/`);
  return [...new Set(dirty)].filter((d) => inc.has(d) || incoming.some((i) => under(d, i) || under(i, d))).sort();
}

function some(list: readonly string[], max = 12): string {
  const shown = list.slice(0, max).map((t) => visible(t)).join(', ');
  return list.length <= max ? shown : `${shown} and ${list.length - max} more`;
}

async function oid(dir: string, ref: string): Promise<string> {
  return (await gitOk(dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], `git rev-parse ${ref}`)).trim();
}

async function isAncestor(dir: string, a: string, b: string): Promise<boolean> {
  return (await git(dir, ['merge-base', '--is-ancestor', a, b])).code === 0;
}

async function diffNames(dir: string, a: string, b: string): Promise<string[]> {
  return (await gitOk(dir, ['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', a, b, '--'], 'git diff --name-only')).split('\0').filter(Boolean);
}

/** The checkout (main or a worktree) that has `branch` checked out, or null. */
async function holderOf(repo: string, branch: string): Promise<string | null> {
  return (await listWorktrees(repo)).find((w) => w.branch === branch)?.path ?? null;
}

/** What lands: refused before anything is made when something would be lost or is in the way. */
async function preflight(rec: WorktreeRecord, o: LandOptions): Promise<{ holder: string | null; from: string; tip: string }> {
  const fixBase = `nerdr worktree land works on a branch base; merge by hand: git -C ${JSON.stringify(rec.repo)} merge ${rec.branch}`;
  if (!(await branchExists(rec.repo, rec.branch))) throw new LandRefused('refused', `the branch ${visible(rec.branch)} of ${rec.name} is gone`, `remove the worktree: nerdr worktree rm ${rec.name}`);
  if (!(await branchExists(rec.repo, rec.base))) throw new LandRefused('refused', `the base of ${rec.name}, ${visible(rec.base)}, is not a branch (the worktree was made from a commit)`, fixBase);
  // what the worktree holds beyond its commits would be lost when it goes: refused now, not after the base moved
  const c = await checkRemoval(rec, [], o.allowIgnored);
  const held = removalProblems({ ...c, branchOnly: [], running: [] }, rec, false);
  if (held.length) {
    throw new LandRefused(
      'refused',
      `${rec.name} holds what landing would lose when its worktree goes:\n  - ${held.join('\n  - ')}`,
      `commit what should land (in ${rec.path}, or ask its agent: nerdr send ${rec.name} "commit your work"), delete the rest${c.ignored.length ? ', or let build output go with [worktrees] rm_ignored (docs/config.md)' : ''}; then land again`,
    );
  }
  const holder = await holderOf(rec.repo, rec.base);
  if (holder) {
    const busy = await operationInProgress(holder);
    if (busy) throw new LandRefused('refused', `${holder}, where ${visible(rec.base)} is checked out, has a ${busy} in progress; nothing was landed`, `finish or abort it there (git -C ${JSON.stringify(holder)} status says how), then land again`);
  }
  return { holder, from: await oid(rec.repo, `refs/heads/${rec.base}`), tip: await oid(rec.repo, `refs/heads/${rec.branch}`) };
}

/** A detached worktree in the temporary folder, gone again with dispose(). */
async function tempWorktree(repo: string, at: string): Promise<{ dir: string; dispose: () => Promise<void> }> {
  const parent = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'nerdr-land-')));
  const dir = path.join(parent, 'wt');
  // interrupted (^C during a long check): the temporary worktree goes, and the base never moved
  const onSignal = (sig: NodeJS.Signals) => {
    rmSync(parent, { recursive: true, force: true });
    try {
      execFileSync('git', ['-C', repo, 'worktree', 'prune'], { stdio: 'ignore' });
    } catch {
      // git prunes it the next time anyway
    }
    process.stderr.write(`nerdr: interrupted: nothing was landed (the temporary worktree ${dir} is removed)\n`);
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await gitOk(repo, ['worktree', 'add', '--detach', '--quiet', dir, at], 'git worktree add (the temporary worktree)');
  } catch (err) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    rmSync(parent, { recursive: true, force: true });
    throw err;
  }
  return {
    dir,
    dispose: async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await git(repo, ['worktree', 'remove', '--force', dir]);
      rmSync(parent, { recursive: true, force: true });
      await git(repo, ['worktree', 'prune']);
    },
  };
}

/** Conflicting files of the merge or rebase under way in `dir`, which is then aborted. */
async function abortWithConflicts(dir: string, rebase: boolean): Promise<string[]> {
  const files = (await git(dir, ['diff', '--name-only', '--diff-filter=U', '-z'])).stdout.split('\0').filter(Boolean);
  await git(dir, rebase ? ['rebase', '--abort'] : ['merge', '--abort']);
  return [...new Set(files)];
}

/** Merges or rebases in the temporary worktree; the commit the base would move to. */
async function combine(rec: WorktreeRecord, tmp: string, from: string, tip: string, rebase: boolean): Promise<{ to: string; how: Landed['how'] }> {
  const why = (conflicts: string[]) =>
    new LandRefused(
      'conflict',
      `${rebase ? 'rebasing' : 'merging'} ${visible(rec.branch)} onto ${visible(rec.base)} conflicts in ${conflicts.length} file${conflicts.length === 1 ? '' : 's'}: ${some(conflicts)}; nothing changed`,
      `resolve it on the branch: in ${rec.path}, git ${rebase ? 'rebase' : 'merge'} ${rec.base}, fix and commit (or ask its agent to); then land again`,
      conflicts,
    );
  if (rebase) {
    const r = await git(tmp, ['rebase', '--no-autosquash', '--no-autostash', from]);
    if (r.code !== 0) {
      const conflicts = await abortWithConflicts(tmp, true);
      if (conflicts.length) throw why(conflicts);
      throw new GitError(`git rebase ${rec.base}`, r, 'nothing changed');
    }
    const to = await oid(tmp, 'HEAD');
    return { to, how: to === tip ? 'fast-forward' : 'rebase' };
  }
  const msg = `Merge branch '${rec.branch}' into ${rec.base}`;
  const r = await git(tmp, ['merge', '--no-edit', '--no-stat', '-m', msg, tip]);
  if (r.code !== 0) {
    const conflicts = await abortWithConflicts(tmp, false);
    if (conflicts.length) throw why(conflicts);
    throw new GitError(`git merge ${rec.branch}`, r, 'nothing changed');
  }
  const to = await oid(tmp, 'HEAD');
  return { to, how: to === tip ? 'fast-forward' : 'merge' };
}

/** Runs `[worktrees] check` in `dir`; refuses with its last lines when it fails. */
async function runCheck(rec: WorktreeRecord, argv: string[], dir: string, say: (l: string) => void): Promise<void> {
  const shown = argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
  say(`checking: ${visible(shown)} (in ${dir})`);
  const started = Date.now();
  const r = await execa(argv[0]!, argv.slice(1), { cwd: dir, reject: false, all: true, stdin: 'ignore', maxBuffer: 64 * 1024 * 1024 });
  if ((r as { code?: string }).code === 'ENOENT') {
    throw new LandRefused('check', `the check ${visible(shown)} could not start: ${visible(argv[0]!)} is not installed here; nothing changed`, 'install it, or change [worktrees] check in config.toml (docs/config.md)');
  }
  const secs = Math.round((Date.now() - started) / 1000);
  if (r.exitCode !== 0) {
    const tail = lastLines(String(r.all ?? ''));
    const end = r.exitCode === undefined ? `was ended by ${r.signal ?? 'a signal'}` : `failed (exit ${r.exitCode})`;
    throw new LandRefused(
      'check',
      `the check ${visible(shown)} ${end} on ${visible(rec.branch)} merged into ${visible(rec.base)}, after ${secs} s; nothing changed. Its last lines:\n    ${tail.join('\n    ')}`,
      `fix it on the branch (in ${rec.path}, or ask its agent), then land again; the check runs in a fresh checkout: put what it needs (npm ci, …) into the check`,
      [],
      tail,
    );
  }
  say(`the check passed (${secs} s)`);
}

/**
 * Moves the base from `from` to `to`. Where it is checked out, `git merge --ff-only` there, so
 * the working tree follows and the user's uncommitted changes stay (git refuses rather than
 * overwrite one; files in the way are refused first, with the fix). Elsewhere only the ref moves,
 * and only if it is still at `from`.
 */
async function moveBase(rec: WorktreeRecord, holder: string | null, from: string, to: string): Promise<void> {
  if (!holder) {
    const r = await git(rec.repo, ['update-ref', '-m', `nerdr worktree land ${rec.branch}`, `refs/heads/${rec.base}`, to, from]);
    if (r.code !== 0) throw new LandRefused('refused', `${visible(rec.base)} could not be moved: ${gitWords(r)}; nothing changed`, 'land again (it moved meanwhile?)');
    return;
  }
  const head = await oid(holder, 'HEAD');
  if (head !== from) throw new LandRefused('refused', `${visible(rec.base)} moved in ${holder} while landing; nothing changed`, 'land again');
  const r = await git(holder, ['merge', '--ff-only', '--no-stat', '--quiet', to]);
  if (r.code !== 0) {
    throw new LandRefused('refused', `${holder} could not be fast-forwarded to the landed ${visible(rec.base)}: ${gitWords(r)}; nothing changed`, `commit or stash the changes there (git -C ${JSON.stringify(holder)} stash), then land again`);
  }
}

/** The user's uncommitted files in the checkout that has the base, which the landing would touch. */
async function refuseInTheWay(rec: WorktreeRecord, holder: string, incoming: string[]): Promise<void> {
  const dirty = (await changedFiles(holder)).flatMap((f) => (f.from ? [f.from, f.path] : [f.path]));
  const way = inTheWay(dirty, incoming);
  if (way.length === 0) return;
  throw new LandRefused(
    'refused',
    `${holder} has ${visible(rec.base)} checked out with uncommitted changes to ${way.length === 1 ? 'a file' : 'files'} the landing changes: ${some(way)}; nothing changed`,
    `commit or stash them there (git -C ${JSON.stringify(holder)} stash), land again, then git stash pop`,
  );
}

/** Lands one worktree's branch; throws LandRefused (nothing changed) or returns what was done. */
export async function landWorktree(rec: WorktreeRecord, o: LandOptions): Promise<Landed> {
  const { holder, from, tip } = await preflight(rec, o);
  const out: Landed = { name: rec.name, branch: rec.branch, base: rec.base, repo: rec.repo, how: 'fast-forward', from, to: from, files: [], checkout: holder, stopped: [], removed: false, branchDeleted: false, kept: [], notes: [] };
  if (await isAncestor(rec.repo, tip, from)) {
    // a worktree whose agent has committed nothing yet is not "done": its window is not stopped for it
    throw new LandRefused('refused', `${visible(rec.base)} has every commit of ${visible(rec.branch)} already: nothing to land`, `to remove the worktree and its branch: nerdr worktree rm ${rec.name} --delete-branch`);
  }
  o.say(`${o.rebase ? 'rebasing' : 'merging'} ${visible(rec.branch)} onto ${visible(rec.base)} in a temporary worktree`);
  const tmp = await tempWorktree(rec.repo, o.rebase ? tip : from);
  try {
    const r = await combine(rec, tmp.dir, from, tip, o.rebase);
    out.to = r.to;
    out.how = r.how;
    out.files = await diffNames(rec.repo, from, r.to);
    // the user's work in the way is said before a long check, not after
    if (holder) await refuseInTheWay(rec, holder, out.files);
    if (o.check) {
      out.notes.push(...copyFiles(rec.repo, tmp.dir, o.copy).filter((n) => !/is not in/.test(n)));
      await runCheck(rec, o.check, tmp.dir, o.say);
    }
    await moveBase(rec, holder, from, r.to);
  } finally {
    await tmp.dispose();
  }
  o.say(`moved ${visible(rec.base)} ${from.slice(0, 8)} → ${out.to.slice(0, 8)} (${out.how}${holder ? `, in ${holder}` : ''}; ${out.files.length} file${out.files.length === 1 ? '' : 's'})`);
  await cleanUp(rec, o, out, tip);
  return out;
}

/** After the base moved: the windows stopped, the worktree removed, the branch deleted, each only when nothing is lost. */
async function cleanUp(rec: WorktreeRecord, o: LandOptions, out: Landed, tip: string): Promise<void> {
  const inIt = windowsIn(rec, o.agents);
  const self = inIt.find((a) => a.window === o.self);
  for (const a of inIt.filter((w) => w !== self)) {
    const which = `the agent window ${visible(a.name)} (${a.window}, ${a.agent})`;
    try {
      const r = await o.stopWindow(a);
      if (r === 'gone') o.say(`${which} had closed already`);
      else {
        out.stopped.push(which);
        o.say(`stopped ${which}`);
      }
    } catch (err) {
      if (!(err instanceof NerdrError)) throw err;
      out.kept.push(`could not stop ${which}: ${err.message}; the worktree ${rec.path} and the branch ${visible(rec.branch)} were kept (nerdr worktree rm ${rec.name} --delete-branch once it is stopped)`);
      return;
    }
  }
  // read again: the agent may have written or committed until it stopped
  const c = await checkRemoval(rec, [], o.allowIgnored);
  const held = removalProblems({ ...c, branchOnly: [], running: [] }, rec, false);
  const now = await oid(rec.repo, `refs/heads/${rec.branch}`).catch(() => null);
  const moved = now !== null && now !== tip;
  if (held.length || moved) {
    const why = moved ? [`${visible(rec.branch)} got new commits while landing`] : held;
    out.kept.push(`kept the worktree ${rec.path} and the branch ${visible(rec.branch)}: ${why.join('; ')} (land it again, or nerdr worktree rm ${rec.name})`);
    return;
  }
  // the base has moved: from here a failure is said as something kept, never as "not landed"
  try {
    if (existsSync(rec.path)) {
      await gitOk(rec.repo, ['worktree', 'remove', rec.path], `git worktree remove ${rec.path}`);
      o.say(`removed the worktree ${rec.path}`);
    } else {
      await git(rec.repo, ['worktree', 'prune']);
      o.say(`the worktree's folder ${rec.path} was gone already: forgotten`);
    }
    out.removed = true;
    if (now !== null) {
      await gitOk(rec.repo, ['branch', '-D', rec.branch], `git branch -D ${rec.branch}`);
      out.branchDeleted = true;
      o.say(`deleted the branch ${visible(rec.branch)}`);
    }
  } catch (err) {
    if (!(err instanceof NerdrError)) throw err;
    out.kept.push(`${err.message}; ${out.removed ? `the branch ${visible(rec.branch)} was kept` : `the worktree ${rec.path} and the branch ${visible(rec.branch)} were kept`} (nerdr worktree rm ${rec.name} --delete-branch)`);
    return;
  }
  if (self) {
    const which = `the agent window ${visible(self.name)} (${self.window}, ${self.agent})`;
    // said first: stopping it ends this command
    o.say(`stopping ${which}, which runs this command`);
    try {
      await o.stopWindow(self);
      out.stopped.push(which);
    } catch (err) {
      if (!(err instanceof NerdrError)) throw err;
      out.kept.push(`${which} runs this command and was not stopped (${err.message}): exit its agent when it is done`);
    }
  }
}

/** The message for an agent whose branch conflicts with a base another branch landed on first. */
export function conflictMessage(rec: Pick<WorktreeRecord, 'branch' | 'base'>, conflicts: readonly string[], landedFirst: readonly string[]): string {
  const v = (t: string) => visible(t);
  const who = landedFirst.length === 1 ? `the branch ${v(landedFirst[0]!)}` : `the branches ${landedFirst.map(v).join(', ')}`;
  const base = v(rec.base);
  return (
    `nerdr worktree land: ${who} landed in ${base} first, and your branch ${v(rec.branch)} now conflicts with ${base} in ${conflicts.map(v).join(', ')}. ` +
    `Please merge ${base} into your branch (git merge ${base}), resolve those files, run the tests and commit; then it can land.`
  );
}

/** Of the branches landed before, those that changed one of the conflicting files; all of them when none did. */
export function landedFirst(landed: readonly Pick<Landed, 'branch' | 'base' | 'repo' | 'files'>[], rec: Pick<WorktreeRecord, 'base' | 'repo'>, conflicts: readonly string[]): string[] {
  const same = landed.filter((l) => l.repo === rec.repo && l.base === rec.base);
  const touching = same.filter((l) => l.files.some((f) => conflicts.includes(f)));
  return (touching.length ? touching : same).map((l) => l.branch);
}
