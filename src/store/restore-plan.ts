// What `nerdr restore` does with each saved window, decided without tmux, files or clocks
// (docs/persistence.md). What it knows of each agent is its integration's `resume` data
// (src/integrations/<agent>.ts): the resume and continue arguments, the flags to strip, where an
// id stands in the arguments, and whether the newest conversation of a folder may be guessed.
//
// Per window: which conversation to resume and with which arguments.
//   1. An id: reported (report/hook) beats one nerdr launched with (launch, or found in the
//      saved arguments: --session-id / --resume ID) beats a guess. Resumed with resumeArgs().
//      An id already taken by an earlier window (same agent) is not resumed twice.
//   2. No id: agents whose resume data says `guessNewest` (opencode, Copilot, Codex) take the
//      newest conversation of the folder (`continue`: --continue / resume --last) — but never when another window of the same
//      agent (saved, or running now) works in that folder: it could pick the other's
//      conversation. Then, and for every other agent, a new conversation, and the note says why.
// The user's own flags (model, permission mode, …) stay; any earlier resume/continue/session-id
// flag is stripped first so it is not doubled or contradicted.

import path from 'node:path';
import { continueArgs, integrationFor, resumeArgs, type FlagSpec } from '../integrations/index.js';
import type { SavedSession, SavedWindow } from './sessions.js';

export type IdSource = 'report' | 'hook' | 'launch' | 'guess';

const RANK: Record<IdSource, number> = { report: 3, hook: 3, launch: 2, guess: 1 };

/** A window that exists now (from `nerdr ls`): what makes a restore idempotent. */
export interface LiveWindow {
  session: string;
  index: number | null;
  agent: string;
  cwd: string;
  conversationId: string | null;
  exited: boolean;
}

export interface PlanContext {
  /** Agent windows running now on this tmux server. */
  live: LiveWindow[];
  /** Window indexes in use per session now (any window, agent or not). */
  occupied: Record<string, number[]>;
  /** Sessions that exist now. */
  sessions: string[];
}

export type ResumeKind = 'id' | 'continue' | 'fresh';

export interface PlannedWindow {
  session: string;
  saved: SavedWindow;
  agent: string;
  name: string;
  cwd: string;
  /** The saved index; `null` when that index is taken by another window (the window goes to the next free one). */
  index: number | null;
  /** 'create', or 'skip' when the window is already there. */
  action: 'create' | 'skip';
  /** User arguments for the launch (resume flags + the user's own, old resume flags stripped). */
  args: string[];
  /** The user's own arguments with no resume flag: what a fresh start uses. */
  freshArgs: string[];
  resume: ResumeKind;
  conversationId: string | null;
  conversationFrom: IdSource | null;
  /** Why this plan, for --dry-run and the output. */
  why: string;
  /** The note set on the window ('' for none). */
  note: string;
}

export interface SessionPlan {
  session: string;
  /** The session must be created first. */
  create: boolean;
  windows: PlannedWindow[];
}

// ---- stripping earlier resume flags ----

/** The user's arguments without any flag that resumes, continues or names a conversation. */
export function stripResumeArgs(agent: string, args: string[]): string[] {
  const spec = integrationFor(agent)?.resume?.strip;
  if (!spec) return [...args];
  let rest = [...args];
  if (spec.subcommands && rest[0] !== undefined && spec.subcommands.includes(rest[0])) rest = splitSubcommand(rest.slice(1), spec).rest;
  const out: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--') {
      out.push(...rest.slice(i));
      break;
    }
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const hasInline = name !== a;
    if (spec.bare.includes(name)) continue;
    if (spec.value.includes(name)) {
      if (!hasInline) i++;
      continue;
    }
    if (spec.optional.includes(name)) {
      const next = rest[i + 1];
      if (!hasInline && next !== undefined && !next.startsWith('-')) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** Codex `resume [ID] [--last] [--all] …`: the id, and the rest without it and the resume-only flags. */
function splitSubcommand(args: string[], spec: FlagSpec): { id: string | null; rest: string[] } {
  const out: string[] = [];
  let id: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--last' || a === '--all') continue;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (a.startsWith('-')) {
      out.push(a);
      if (!a.includes('=') && spec.otherValueFlags?.includes(a) && args[i + 1] !== undefined) out.push(args[++i]!);
      continue;
    }
    if (id === null) {
      id = a;
      continue;
    }
    out.push(a);
  }
  return { id, rest: out };
}

// ---- ids ----

interface Candidate {
  id: string;
  from: IdSource;
}

function sourceOf(from: string | null): IdSource {
  return from === 'report' || from === 'hook' || from === 'guess' || from === 'launch' ? from : 'launch';
}

/** An id the user launched with, from the saved arguments (--session-id V, --resume V, codex resume V). */
export function idFromArgs(agent: string, args: string[]): string | null {
  const get = (names: string[]): string | null => {
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--') break;
      for (const n of names) {
        if (a === n) {
          const v = args[i + 1];
          if (v !== undefined && !v.startsWith('-')) return v;
        } else if (n.startsWith('--') && a.startsWith(`${n}=`)) return a.slice(n.length + 1) || null;
      }
    }
    return null;
  };
  const resume = integrationFor(agent)?.resume;
  if (!resume) return null;
  if (resume.idSubcommand !== null) return args[0] === resume.idSubcommand ? splitSubcommand(args.slice(1), resume.strip).id : null;
  for (const names of resume.idFlags) {
    const id = get(names);
    if (id !== null) return id;
  }
  return null;
}

/** The best id for a window: reported/hook > launch > guess; ids that cannot be resumed are left out. */
export function bestId(w: SavedWindow): Candidate | null {
  const cands: Candidate[] = [];
  if (w.conversationId) cands.push({ id: w.conversationId, from: sourceOf(w.conversationFrom) });
  const fromArgs = idFromArgs(w.agent, w.args);
  if (fromArgs) cands.push({ id: fromArgs, from: 'launch' });
  const usable = cands.filter((c) => resumeArgs(w.agent, c.id) !== undefined);
  usable.sort((a, b) => RANK[b.from] - RANK[a.from]);
  return usable[0] ?? null;
}

// ---- the plan ----

function sameDir(a: string, b: string): boolean {
  return path.resolve(a) === path.resolve(b);
}

/** The plan for the saved sessions (in the order given). */
export function planRestore(saved: SavedSession[], ctx: PlanContext): SessionPlan[] {
  const all = saved.flatMap((s) => s.windows.map((w) => ({ session: s.session, w })));
  const taken = new Set<string>(); // agent\0id already resumed by an earlier window
  for (const l of ctx.live) if (!l.exited && l.conversationId) taken.add(`${l.agent}\0${l.conversationId}`);
  const plans: SessionPlan[] = [];
  for (const s of saved) {
    const occupied = new Set(ctx.occupied[s.session] ?? []);
    const windows: PlannedWindow[] = [];
    const ordered = [...s.windows].sort((a, b) => a.index - b.index);
    for (const w of ordered) {
      const freshArgs = stripResumeArgs(w.agent, w.args);
      const base = { session: s.session, saved: w, agent: w.agent, name: w.name, cwd: w.cwd, freshArgs };
      const here = ctx.live.find((l) => l.session === s.session && l.index === w.index && l.agent === w.agent && sameDir(l.cwd, w.cwd));
      if (here) {
        windows.push({ ...base, index: w.index, action: 'skip', args: w.args, resume: 'fresh', conversationId: here.conversationId, conversationFrom: null, why: `already there (window ${w.index} runs ${w.agent} in ${w.cwd})`, note: '' });
        continue;
      }
      const best = bestId(w);
      if (best && ctx.live.some((l) => !l.exited && l.agent === w.agent && l.conversationId === best.id)) {
        windows.push({ ...base, index: w.index, action: 'skip', args: w.args, resume: 'fresh', conversationId: best.id, conversationFrom: best.from, why: `conversation ${best.id} already runs in another window`, note: '' });
        continue;
      }
      const index = occupied.has(w.index) ? null : w.index;
      occupied.add(w.index);
      const where = index === null ? `; index ${w.index} is taken, so the next free one` : '';
      if (best && !taken.has(`${w.agent}\0${best.id}`)) {
        taken.add(`${w.agent}\0${best.id}`);
        const from = best.from === 'hook' || best.from === 'report' ? 'reported' : best.from === 'launch' ? 'launch' : 'guessed';
        windows.push({
          ...base,
          index,
          action: 'create',
          args: [...resumeArgs(w.agent, best.id)!, ...freshArgs],
          resume: 'id',
          conversationId: best.id,
          conversationFrom: best.from,
          why: `resume ${from} conversation ${best.id}${where}`,
          note: best.from === 'guess' ? `resumed conversation ${best.id} (a guess: the saved id was not reported by the agent)` : '',
        });
        continue;
      }
      let reason: string;
      if (best) reason = `conversation ${best.id} is resumed by another window`;
      else {
        const cont = integrationFor(w.agent)?.resume?.guessNewest ? continueArgs(w.agent) : undefined;
        const sharing = all.filter((o) => o.w !== w && o.w.agent === w.agent && sameDir(o.w.cwd, w.cwd)).length
          + ctx.live.filter((l) => !l.exited && l.agent === w.agent && sameDir(l.cwd, w.cwd)).length;
        if (cont && sharing === 0) {
          windows.push({
            ...base,
            index,
            action: 'create',
            args: [...cont, ...freshArgs],
            resume: 'continue',
            conversationId: null,
            conversationFrom: 'guess',
            why: `no conversation id saved: the newest ${w.agent} conversation in ${w.cwd} (${cont.join(' ')})${where}`,
            note: `resumed the newest ${w.agent} conversation in this folder (no id was known)`,
          });
          continue;
        }
        reason = cont
          ? `no conversation id saved, and ${sharing} other ${w.agent} window${sharing === 1 ? '' : 's'} share${sharing === 1 ? 's' : ''} ${w.cwd}: guessing could pick the wrong conversation`
          : resumeArgs(w.agent, 'id') === undefined
            ? `nerdr cannot resume a ${w.agent} conversation`
            : `no conversation id saved, and ${w.agent} has no safe "newest in this folder" resume`;
      }
      if (w.agent === 'unknown' && w.argv.length > 0) {
        // a `nerdr new --cmd` window: no conversation to speak of, its command runs again (the
        // real run and --dry-run say the same)
        windows.push({ ...base, index, action: 'create', args: freshArgs, resume: 'fresh', conversationId: null, conversationFrom: null, why: `its saved command runs again${where}`, note: 'the saved command was started again' });
        continue;
      }
      windows.push({ ...base, index, action: 'create', args: freshArgs, resume: 'fresh', conversationId: null, conversationFrom: null, why: `new conversation: ${reason}${where}`, note: `started a new conversation: ${reason}` });
    }
    plans.push({ session: s.session, create: !ctx.sessions.includes(s.session), windows });
  }
  return plans;
}
