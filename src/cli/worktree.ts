// `nerdr worktree ls | rm | merge | conflicts | land`: the worktrees `nerdr new --worktree` made (src/worktrees/).

import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { configDir, serverFiles, stateDir } from '../paths.js';
import { request, SocketRequestError } from '../supervisor/socket/index.js';
import type { AgentRow } from '../protocol/index.js';
import { checkGitVersion, mainCheckout, parseGitVersion } from '../worktrees/git.js';
import { findConflicts, sharedByWorktree, type ConflictsReport, type MergeCheck } from '../worktrees/conflicts.js';
import { WorktreeRegistry, type WorktreeRecord } from '../worktrees/registry.js';
import { checkRemoval, describeWorktree, mergeWorktree, removalProblems, removeWorktree, thrownAway, windowsIn } from '../worktrees/manage.js';
import { conflictMessage, landedFirst, landWorktree, LandRefused, type Landed, type LandFailure } from '../worktrees/land.js';
import { visible } from '../text.js';
import { loadConfig } from '../config.js';
import { call, callerSecret, socketError, tmuxSocket } from './context.js';
import { printJson, table } from './print.js';
import { age } from '../looks.js';

function registry(): WorktreeRegistry {
  return new WorktreeRegistry(stateDir());
}

/**
 * The agent rows of this tmux server: asked of its supervisor, which is started again when the
 * server has nerdr windows but none answers (a crashed one must not hide an agent from `rm`).
 * None outside tmux (no server named) or on a server without nerdr windows.
 */
async function agents(cmd: Command): Promise<{ sock: string | null; rows: AgentRow[] }> {
  let sock: string;
  try {
    sock = await tmuxSocket(cmd, { mustRun: false });
  } catch (err) {
    if (err instanceof NerdrError) return { sock: null, rows: [] };
    throw err;
  }
  const r = await call<{ agents: AgentRow[] }>(cmd, 'nerdr.ls', {}, { whenNone: () => ({ agents: [] }) });
  return { sock, rows: r.agents };
}

async function find(name: string): Promise<WorktreeRecord> {
  await checkGitVersion();
  return registry().find(name, await mainCheckout(process.cwd()).catch(() => null));
}

function aheadBehind(a: number | null, b: number | null): string {
  return a === null || b === null ? '-' : `+${a} -${b}`;
}

/**
 * From an agent window, a worktree goes only with the agent windows that run in it, so only when
 * each is one this window may stop (src/supervisor/control.ts); said before anything else, so that
 * no refusal points it at `--force`. The supervisor refuses each stop as well. With `self`
 * (land), its own window counts as one it may stop; the caller's window is returned.
 */
async function refuseOthersWindows(cmd: Command, rec: WorktreeRecord, rows: AgentRow[], opts: { self?: boolean } = {}): Promise<string | null> {
  const caller = callerSecret();
  const inIt = windowsIn(rec, rows);
  if (!caller || inIt.length === 0) return null;
  const may = await call<{ all: boolean; caller?: string; windows: string[] }>(cmd, 'nerdr.may', { caller, action: 'stop' });
  const others = may.all ? [] : inIt.filter((a) => !may.windows.includes(a.window) && !(opts.self && a.window === may.caller));
  if (others.length === 0) return may.caller ?? null;
  const me = rows.find((a) => a.window === may.caller);
  throw new NerdrError(
    `${me ? `${visible(me.name)} (${me.window})` : 'this'} is an agent window: it may remove only worktrees whose agent windows it started (or theirs), ` +
      `and ${others.map((a) => `${visible(a.name)} (${a.window})`).join(', ')} ${others.length === 1 ? 'runs' : 'run'} in ${rec.name}`,
    `leave ${rec.name} to the agent that started it, or ask the user; to let agents act on every window, set [agents] control = "all" in ${loadConfig(configDir()).path}`,
    { code: 'not_permitted' },
  );
}

export function register(program: Command): void {
  const wt = program.command('worktree').description('the git worktrees nerdr made for agents (nerdr new <agent> --worktree BRANCH)');

  wt.command('ls')
    .description('every worktree nerdr made: name, branch, base, agent window, changed files, ahead/behind, last commit')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const list = registry().list((m) => process.stderr.write(`nerdr: ${m}\n`));
      if (list.length > 0) await checkGitVersion();
      const { rows } = await agents(cmd);
      const [described, overlap] = await Promise.all([Promise.all(list.map((r) => describeWorktree(r, rows))), findConflicts(list, null, { merge: false })]);
      const shared = sharedByWorktree(overlap);
      const infos = described.map((i) => ({ ...i, shared: shared.get(i.path) ?? [] }));
      if (opts.json) return printJson(infos);
      if (infos.length === 0) return void process.stdout.write('no worktrees; make one with `nerdr new <agent> --worktree BRANCH`\n');
      const now = Date.now();
      process.stdout.write(
        table(
          ['NAME', 'BRANCH', 'BASE', 'AGENT', 'CHANGED', 'AHEAD/BEHIND', 'SHARED', 'LAST COMMIT', 'PATH'],
          infos.map((i) => [
            i.name,
            i.branch,
            i.base,
            i.window ? `${i.window.name} (${i.window.window}, ${i.window.state})` : '-',
            i.exists ? String(i.changed) : 'gone',
            aheadBehind(i.ahead, i.behind),
            String(i.shared.length),
            i.lastCommit ? `${i.lastCommit.hash.slice(0, 8)} ${age(now - i.lastCommit.time * 1000)} ${visible(i.lastCommit.subject.slice(0, 40))}` : '-',
            i.path,
          ]),
        ),
      );
      if (infos.some((i) => i.shared.length)) process.stderr.write('nerdr: SHARED counts files another worktree changed too; nerdr worktree conflicts says whether they merge\n');
    });

  wt.command('conflicts')
    .description('for every pair of worktrees of a repository: the files both changed, and whether the branches merge into their base and into each other (git merge-tree, in memory)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const list = registry().list((m) => process.stderr.write(`nerdr: ${m}\n`));
      const version = list.length > 0 ? parseGitVersion(await checkGitVersion()) : null;
      const report = await findConflicts(list, version);
      if (opts.json) return printJson(report);
      process.stdout.write(conflictsText(report));
    });

  wt.command('land <names...>')
    .description('merge (or --rebase) each branch onto its base, run [worktrees] check on the result in a temporary worktree, and only then move the base; then stop its agent window, remove the worktree, delete the branch. A conflict or a failing check changes nothing')
    .option('--rebase', 'rebase the branch onto its base (a straight line) instead of merging it')
    .option('--json', 'print JSON (the steps go to stderr)')
    .action(async (names: string[], opts: { rebase?: boolean; json?: boolean }, cmd: Command) => {
      await checkGitVersion();
      const here = await mainCheckout(process.cwd()).catch(() => null);
      // every name is found before anything lands: a typo refuses the whole command, not its tail
      const recs = [...new Map(names.map((n) => registry().find(n, here)).map((r) => [r.path, r])).values()];
      const { sock, rows } = await agents(cmd);
      const cfg = loadConfig(configDir()).config.worktrees;
      const out = opts.json ? process.stderr : process.stdout;
      const landed: Landed[] = [];
      const skipped: Skipped[] = [];
      for (const rec of recs) {
        const say = (line: string) => void out.write(`${rec.name}: ${line}\n`);
        try {
          // an agent may land its own worktree: its window is stopped last (src/worktrees/land.ts)
          const self = sock ? await refuseOthersWindows(cmd, rec, rows, { self: true }) : null;
          const r = await landWorktree(rec, {
            self,
            rebase: opts.rebase === true,
            check: cfg.check,
            copy: cfg.copy,
            allowIgnored: cfg.rm_ignored,
            agents: sock ? rows : [],
            stopWindow: (a) => stopAgent(sock!, a),
            say,
          });
          if (r.removed) registry().remove(rec.path);
          for (const k of r.kept) say(k);
          landed.push(r);
        } catch (err) {
          if (!(err instanceof NerdrError)) throw err;
          const kind: LandFailure = err instanceof LandRefused ? err.kind : 'refused';
          const conflicts = err instanceof LandRefused ? err.conflicts : [];
          process.stderr.write(`nerdr: ${rec.name} not landed: ${err.message}\n  fix: ${err.fixText}\n`);
          const told = kind === 'conflict' && sock ? await tellAgent(cmd, rec, rows, conflicts, landedFirst(landed, rec, conflicts), say) : [];
          skipped.push({ name: rec.name, branch: rec.branch, base: rec.base, kind, message: err.message, fix: err.fixText, conflicts, checkTail: err instanceof LandRefused ? err.checkTail : [], told });
        }
      }
      if (skipped.length) process.exitCode = 1;
      if (opts.json) return printJson({ landed, skipped });
      if (recs.length > 1) {
        const not = skipped.length ? `; not landed: ${skipped.map((s) => `${s.name} (${s.kind})`).join(', ')}` : '';
        process.stdout.write(`landed ${landed.length} of ${recs.length}${landed.length ? `: ${landed.map((l) => l.name).join(', ')}` : ''}${not}\n`);
      }
    });

  wt.command('rm <name>')
    .description('remove a worktree nerdr made; refuses when that would lose changes, files or commits, or an agent still runs in it')
    .option('--force', 'remove anyway: stop its agent windows, throw away what it holds (each thing is listed)')
    .option('--delete-branch', 'delete its branch too (kept by default)')
    .option('--json', 'print JSON')
    .action(async (name: string, opts: { force?: boolean; deleteBranch?: boolean; json?: boolean }, cmd: Command) => {
      const rec = await find(name);
      const force = opts.force === true;
      const deleteBranch = opts.deleteBranch === true;
      const { sock, rows } = await agents(cmd);
      const allow = loadConfig(configDir()).config.worktrees.rm_ignored;
      if (sock) await refuseOthersWindows(cmd, rec, rows);
      const check = await checkRemoval(rec, rows, allow);
      const problems = removalProblems(check, rec, deleteBranch);
      if (problems.length && !force) {
        const detached = check.detached[0]?.split(' ')[0];
        throw new NerdrError(
          `not removing ${rec.name} (${rec.path}); it holds:\n  - ${problems.join('\n  - ')}`,
          [
            `commit and merge what you want to keep (nerdr worktree merge ${rec.name}), stop its agent`,
            ...(detached ? [`keep the detached commits on a branch (git -C ${JSON.stringify(rec.path)} branch NAME ${detached})`] : []),
            ...(check.ignored.length ? ['let build output go with [worktrees] rm_ignored (docs/config.md)'] : []),
          ].join('; ') + `; or remove it anyway: nerdr worktree rm ${rec.name} --force${deleteBranch ? ' --delete-branch' : ''}`,
        );
      }
      const say = (line: string) => void (opts.json ? undefined : process.stdout.write(`${line}\n`));
      const stopped: string[] = [];
      if (sock) {
        for (const a of windowsIn(rec, rows)) {
          const which = `the agent window ${a.name} (${a.window}, ${a.agent})`;
          try {
            await request(serverFiles(sock).socket, 'nerdr.stop-agent', { target: a.window, caller: callerSecret() }, { timeoutMs: 5000 });
          } catch (err) {
            if (!(err instanceof SocketRequestError)) throw err;
            if (err.code === 'unknown_target') {
              say(`${which} had closed already`);
              continue;
            }
            const e = socketError(err);
            const before = stopped.length ? `; ${stopped.join(', ')} before it` : '';
            throw new NerdrError(`could not stop ${which}: ${e.message}${before}; ${rec.name} was not removed`, e.fixText, { code: e.code });
          }
          stopped.push(`stopped ${which}`);
          say(`stopped ${which}`);
        }
      }
      // read again once the agents are stopped: what they wrote meanwhile goes too, and is listed
      const gone = force ? await checkRemoval(rec, [], allow) : check;
      const done = await removeWorktree(rec, { force, deleteBranch });
      registry().remove(rec.path);
      if (opts.json) {
        return printJson({
          name: rec.name,
          path: rec.path,
          branch: rec.branch,
          removed: true,
          branchDeleted: done.some((d) => d.startsWith('deleted the branch')),
          stopped,
          overridden: force ? problems : [],
          discarded: { changed: gone.changed, untracked: gone.untracked, ignored: [...gone.ignored, ...gone.ignoredLetGo, ...gone.ignoredCopies], detachedCommits: gone.detached, branchCommits: deleteBranch ? gone.branchOnly : [] },
        });
      }
      for (const line of [done[0]!, ...thrownAway(gone, rec, deleteBranch), ...done.slice(1)]) say(line);
    });

  wt.command('merge <name>')
    .description("merge a worktree's branch into its base (or --into BRANCH) in the main checkout; a conflict is aborted and listed")
    .option('--into <branch>', 'the branch to merge into (default: the base the worktree was made from)')
    .option('--json', 'print JSON')
    .action(async (name: string, opts: { into?: string; json?: boolean }) => {
      const rec = await find(name);
      const r = await mergeWorktree(rec, opts.into);
      if (opts.json) return printJson(r);
      if (r.how === 'nothing') process.stdout.write(`nothing to merge: ${r.into} has every commit of ${r.branch}\n`);
      else process.stdout.write(`merged ${r.branch} into ${r.into} in ${r.repo}: ${r.commits} commit${r.commits === 1 ? '' : 's'}, ${r.how === 'merge' ? `merge commit ${r.head?.slice(0, 8)}` : 'fast-forward'}\n`);
      if (r.leftBehind) process.stderr.write(`nerdr: ${rec.path} has ${r.leftBehind} uncommitted change${r.leftBehind === 1 ? '' : 's'}, not part of the merge\n`);
    });
}

function files(list: readonly string[]): string {
  return list.map((f) => visible(f)).join(', ');
}

function mergeText(m: MergeCheck, what: string): string {
  if (m.clean === null) return `${what}: not checked (${m.why ?? 'unknown'})`;
  return m.clean ? `${what}: merges cleanly` : `${what}: CONFLICTS in ${files(m.conflicts)}`;
}

/** The report as lines: each worktree against its base, then each pair of one repository. */
export function conflictsText(r: ConflictsReport): string {
  if (r.worktrees.length === 0) return 'no worktrees; make one with `nerdr new <agent> --worktree BRANCH`\n';
  const out: string[] = [];
  if (r.notChecked) out.push(`nerdr: ${r.notChecked}`);
  for (const w of r.worktrees) {
    const parts = [`${w.name} (${visible(w.branch)} → ${visible(w.base)})${w.exists ? '' : ' [folder gone]'}`];
    if (r.mergeChecked) parts.push(mergeText(w.intoBase, `into ${visible(w.base)}`));
    parts.push(`${w.committed.length} committed, ${w.uncommitted.length} uncommitted file${w.uncommitted.length === 1 ? '' : 's'}${w.uncommitted.length && r.mergeChecked ? ' (uncommitted changes not merge-checked)' : ''}`);
    out.push(parts.join('; '));
  }
  if (r.pairs.length === 0) out.push('no two worktrees of one repository: nothing to compare');
  for (const p of r.pairs) {
    out.push('');
    const head = `${p.a} and ${p.b}`;
    if (p.shared.length === 0) out.push(`${head}: no file changed by both`);
    else out.push(`${head}: ${p.shared.length} file${p.shared.length === 1 ? '' : 's'} changed by both: ${p.shared.map((s) => `${visible(s.path)} (${s.a === s.b ? s.a : `${s.a} / ${s.b}`})`).join(', ')}`);
    if (r.mergeChecked) out.push(`  ${mergeText(p.merge, `${visible(p.aBranch)} with ${visible(p.bBranch)}`)}`);
    if (r.mergeChecked && p.notMergeChecked.length) out.push(`  uncommitted changes not merge-checked: ${files(p.notMergeChecked)} (commit them to have them checked)`);
  }
  return out.join('\n') + '\n';
}

interface Skipped {
  name: string;
  branch: string;
  base: string;
  kind: LandFailure;
  message: string;
  fix: string;
  conflicts: string[];
  checkTail: string[];
  /** The agent windows told of the conflict: their message ids. */
  told: { window: string; id: string }[];
}

/** Stops one agent window as `nerdr stop` does (with the caller, so agent windows keep their limits). */
async function stopAgent(sock: string, a: AgentRow): Promise<'stopped' | 'gone'> {
  try {
    await request(serverFiles(sock).socket, 'nerdr.stop-agent', { target: a.window, caller: callerSecret() }, { timeoutMs: 5000 });
    return 'stopped';
  } catch (err) {
    if (!(err instanceof SocketRequestError)) throw err;
    if (err.code === 'unknown_target') return 'gone';
    throw socketError(err);
  }
}

/**
 * A branch that conflicts once another landed first: its running agent windows get a queued
 * message (as `nerdr send` queues one) naming the files and that branch.
 */
async function tellAgent(cmd: Command, rec: WorktreeRecord, rows: AgentRow[], conflicts: string[], first: string[], say: (l: string) => void): Promise<{ window: string; id: string }[]> {
  if (first.length === 0) return [];
  const told: { window: string; id: string }[] = [];
  const message = conflictMessage(rec, conflicts, first);
  for (const a of windowsIn(rec, rows).filter((w) => w.state !== 'exited')) {
    try {
      const r = await call<{ target: string; id: string; position: number }>(cmd, 'nerdr.send', { target: a.window, message, caller: callerSecret() });
      told.push({ window: a.window, id: r.id });
      say(`told its agent ${visible(a.name)} (${a.window}) which files conflict with ${first.map((b) => visible(b)).join(', ')}: message ${r.id}, #${r.position} in its queue`);
    } catch (err) {
      if (!(err instanceof NerdrError)) throw err;
      say(`could not tell its agent ${visible(a.name)} (${a.window}): ${err.message}`);
    }
  }
  return told;
}
