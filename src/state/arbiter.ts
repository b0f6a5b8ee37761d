// The arbiter: one per agent window. Pure logic with an injected clock — it owns no timers. Every
// input method returns the current view, the change it caused (if any) and the next deadline at
// which it wants `tick()` to be called. docs/state-rules.md describes the rules in prose.
import type { AgentState, EngineState } from '../types.js';
import type { HookFact } from '../integrations/events/types.js';
import {
  ANSWERED_MS, BACKGROUND_STALE_MS, DEFAULT_IDLE_AFTER_MS, DISMISSED_WORK_MS, DONE_IDLE_MS, DONE_UNCHANGED_MS, FALLBACK_IDLE_MS,
  HOOK_IDLE_CONTRADICTED_MS, INTERRUPTED_IDLE_MS, PENDING_IDLE_HOLD_MS, STARTUP_GRACE_MS, STATUS_IDLE_HOLD_MS,
  STATUS_LATE_END_MS,
} from './constants.js';
import {
  KNOWN_AGENTS, SeqBook, START_SOURCES, canonicalAgent, classifySource, herdrRules, mayReplaceSession, parseSeq,
  validSessionId, validSessionPath, type SourceClass,
} from './reports.js';
import { Presentation, type MetadataReport, type PresentationView } from './presentation.js';

/** One manifest evaluation of the screen (detect's output for the current snapshot). */
export interface ScreenEvaluation {
  state: EngineState;
  visibleIdle: boolean;
  visibleBlocker: boolean;
  visibleWorking: boolean;
  skipStateUpdate: boolean;
  /** Fingerprint of the detection text (+ OSC inputs); equal hashes mean "unchanged". */
  hash: string;
  /** Whether the agent's manifest has any rule that can yield idle (overrides the constructor option). */
  hasIdleRules?: boolean;
  /** True when no rule matched (the engine's idle fallback). Inferred as idle without visible flags if absent. */
  fallback?: boolean;
  /** Winning rule id, for `explain`. */
  rule?: string;
  /**
   * The usage limit the screen shows, read with the agent's wording (src/detect/limits.ts), or
   * null. `key` tells a new sighting from the same one seen again (its reset is read once).
   */
  limit?: LimitSeen | null;
  /** The screen shows the agent's own dialog about its limit: while limited it is the limit's, not a blocker. */
  limitDialog?: boolean;
}

/** A usage limit as the screen or a hook shows it; `resetAt` epoch ms, null when unknown. */
export interface LimitSeen {
  words: string;
  resetAt: number | null;
  resetText: string | null;
  key?: string;
}

/** The usage limit an agent is at (docs/lifecycle.md). */
export interface LimitFact {
  words: string;
  /** When it resets (epoch ms), or null when the agent did not say or nerdr could not read it. */
  resetAt: number | null;
  resetText: string | null;
  from: 'hook' | 'screen';
  /** When nerdr saw it (the clock's ms). */
  at: number;
  /** Its reset passed, but the agent's own dialog about it is still open: limited until it closes. */
  over?: boolean;
}

/**
 * A screen no manifest reads (the quiet rule, docs/state-rules.md): the program's output is
 * judged by when it last changed and where the cursor is.
 */
export interface QuietEvaluation {
  /** Fingerprint of the screen text; equal hashes mean "no new output". */
  hash: string;
  /** The text before the cursor when the cursor is on an input line (a prompt), else null. */
  prompt: string | null;
  /** Why the cursor's line is or is not an input line, for `explain`. */
  why: string;
}

/**
 * What the quiet rule says: `pending` (not quiet long enough yet, no output since the start),
 * `output` (output flowing), `idle`, `silent` (quiet, the cursor not on an input line, but it
 * waited at one before: likely working without output), `unsure` (the same, and it never waited
 * at an input line since it started) or `off` (idle after 0 s). With `unsure` and `off` nerdr
 * cannot tell whether the program will ever wait for input.
 */
export type QuietVerdict = 'pending' | 'output' | 'idle' | 'silent' | 'unsure' | 'off';

export type Authority = 'none' | 'process' | 'screen' | 'hook' | 'status' | 'report' | 'lifecycle';
/** launch: nerdr chose it (claude --session-id); guess: a restore resumed "the newest" one. */
export type ConversationOrigin = 'launch' | 'guess' | 'hook' | 'report';
export type HookPhase = 'working' | 'blocked' | 'ended' | 'interrupted' | 'background';
export type ReportState = 'idle' | 'working' | 'blocked' | 'unknown';

/**
 * What an agent's own status file says (Claude Code's `~/.claude/sessions/<pid>.json`, matched to
 * the window's process by pid and start time; supervisor/agent-status.ts).
 */
export interface AgentStatus {
  status: 'busy' | 'waiting' | 'idle';
  /** What it waits for ("permission prompt", "input needed"), with `waiting`. */
  waitingFor?: string;
  /** When the agent wrote this status (its own clock, ms): a new write of the same status is news. */
  updatedAt?: number;
  /** Where it was read, for `explain`. */
  file?: string;
}

export interface PendingTimer {
  /** Stable name, e.g. "startup-grace", "done-confirm", "answered", "interrupted". */
  name: string;
  /** Clock time at which it fires. */
  at: number;
  /** What happens then, in words. */
  what: string;
}

export interface ArbiterView {
  agent: string;
  state: AgentState;
  /** The state before the done/seen presentation (`done` shows as idle here). */
  engineState: EngineState | 'exited' | 'limited';
  authority: Authority;
  /** Human explanation for `nerdr explain`. */
  reason: string;
  /** Clock time of the last change of `state`. */
  since: number;
  seen: boolean;
  /** Working only because subagents or background tasks still run after the turn ended. */
  background: boolean;
  subagents: number;
  backgroundTasks: number;
  /** The conversation: an id, or (pi, omp) the absolute path of its session file. */
  conversationId: string | null;
  conversationFrom: ConversationOrigin | null;
  /** Owner of a reported conversation id (report source), when it came from a report. */
  conversationOwner: string | null;
  /** The label a custom report gave the agent, when it is not the window's (`--agent mybot`). */
  reportedAgent: string | null;
  /** What `pane.report_metadata` asks to show (title, display name, state labels, tokens). */
  presentation: PresentationView;
  pending: PendingTimer[];
  hookPhase: HookPhase | null;
  screen: { state: EngineState; lastEvaluation: number | null; unchangedSince: number | null; rule: string | null };
  report: { source: string; class: SourceClass; state: ReportState; message: string | null; at: number } | null;
  /** The agent's status file, when one is read for this window. */
  status: { status: AgentStatus['status']; waitingFor: string | null; file: string | null; at: number } | null;
  /** The usage limit the agent is at, while it is `limited`; else null. */
  limit: LimitFact | null;
  /** The quiet rule, while it reads the screen (no manifest knows the program); else null. */
  quiet: { idleAfterMs: number; verdict: QuietVerdict; prompt: string | null; inputWhy: string; changedAt: number; why: string } | null;
}

export interface ArbiterChange {
  at: number;
  from: AgentState;
  to: AgentState;
  /** False when only counts/background/conversation changed. */
  stateChanged: boolean;
  authority: Authority;
  reason: string;
}

export interface ArbiterUpdate {
  view: ArbiterView;
  change: ArbiterChange | null;
  /** Call `tick()` at this clock time (the supervisor keeps one timer); null = nothing pending. */
  deadline: number | null;
  /** Report methods only: whether the report was accepted (herdr answers ok either way). */
  accepted?: boolean;
  /** An error herdr answers instead of ok (metadata_token_limit). */
  error?: string;
  /** The usage limit's reset time passed with this update (what `[agents] on_limit = "resume"` waits for). */
  limitLapsed?: { words: string; resetAt: number };
}

export interface ArbiterOptions {
  /** The agent running in this window (label; canonicalised). */
  agent: string;
  /** Injected clock, milliseconds. */
  clock: () => number;
  /** Whether the agent's manifest has an idle rule (default true; agy, copilot, gemini, opencode … have none). */
  hasIdleRules?: boolean;
  /** A conversation id chosen by nerdr at launch (e.g. Claude --session-id). */
  conversationId?: string;
  /** The quiet rule's wait, for a screen no manifest reads (quietScreen); 0 = off. Default 3 s. */
  idleAfterMs?: number;
}

/** The arbiter's facts that outlive a supervisor (see Arbiter.facts). */
export interface PersistedFacts {
  v: 1;
  conversation?: { id: string; from: ConversationOrigin; owner: string | null };
  hook?: { phase: HookPhase; why: string };
  subagents: number;
  backgroundTasks: number;
  report?: { source: string; agent: string; state: ReportState; message: string | null };
  seen: boolean;
  /** A turn was under way (working or blocked since the last idle): an idle after a restart completes it. */
  active?: boolean;
  /** When the agent last went from idle to working or blocked (ms): a message typed before it was taken. */
  turnAt?: number | null;
  /** The usage limit it is at, its reset time kept across restarts. */
  limit?: Omit<LimitFact, 'at'>;
  /** The last limit sighting taken from the screen (ScreenEvaluation.limit.key): the same one is not read again. */
  limitKey?: string | null;
}

export interface AgentReport {
  source: string;
  agent: string;
  state: string;
  /** u64: bigint, decimal string, or a safe-integer number. */
  seq?: unknown;
  message?: string;
  agentSessionId?: string;
  /** Used only for agents whose conversation is a session file (herdr rules `conversation: 'path'`: pi, omp), where it is preferred over the id. */
  agentSessionPath?: string;
}

export interface SessionReport {
  source: string;
  agent: string;
  seq?: unknown;
  agentSessionId?: string;
  /** Used only for agents whose conversation is a session file (herdr rules `conversation: 'path'`: pi, omp), where it is preferred over the id. */
  agentSessionPath?: string;
  sessionStartSource?: string;
}

export interface ReleaseReport {
  source: string;
  agent: string;
  seq?: unknown;
}

/** `from`: a hook fact, or the agent's status file standing in for one (authority `status`). */
interface HookState { phase: HookPhase; at: number; why: string; from?: 'hook' | 'status' }
interface Derived { engine: EngineState | 'exited' | 'limited'; authority: Authority; reason: string; quiet: boolean; background: boolean }

const REPORT_STATES = new Set(['idle', 'working', 'blocked', 'unknown']);

/**
 * The conversation a report names: the session file of an agent whose conversation is a path (pi,
 * omp) when an official source sends a valid one, else a valid id; undefined when it names none
 * (an invalid one is dropped, as herdr does).
 */
function reportRef(label: string, cls: SourceClass, id: string | undefined, path: string | undefined): string | undefined {
  if (herdrRules(label)?.conversation === 'path' && cls !== 'custom' && validSessionPath(path)) return path;
  return validSessionId(id) ? id.trim() : undefined;
}

function validRef(v: unknown): v is string {
  return validSessionId(v) || validSessionPath(v);
}

export class Arbiter {
  readonly agent: string;
  private readonly clock: () => number;
  private readonly defaultHasIdleRules: boolean;

  // process
  private proc: 'none' | 'running' | 'exited' = 'none';
  private graceUntil = -Infinity;

  // screen
  private ev: ScreenEvaluation | null = null;
  private evAt = -Infinity;
  private hashChangedAt = -Infinity;
  private idleSince = -Infinity;
  private workingSince = -Infinity;
  /** When the screen last stopped showing a blocker (first non-blocked evaluation after a blocked one). */
  private blockerGoneAt = -Infinity;
  private screenState: EngineState = 'unknown';
  private screenWhy = 'no screen evaluation yet';

  // the quiet rule: a screen no manifest reads (quietScreen)
  private readonly idleAfterMs: number;
  private quietEv: QuietEvaluation | null = null;
  /** When its text last changed (the first evaluation counts). */
  private quietChangedAt = -Infinity;
  /** When it last changed after the startup grace or a first idle: output, not the program drawing its start. */
  private quietOutputAt = -Infinity;
  /** The rule said idle since the process started: what follows answers the user. */
  private quietIdled = false;
  private quietVerdict: QuietVerdict | null = null;

  // hooks
  private hook: HookState | null = null;
  /** When the last hook fact of the main conversation arrived. */
  private lastHookAt = -Infinity;
  private subagentIds = new Set<string>();
  private anonSubagents = 0;
  private bgTasks = 0;
  /**
   * The user stopped this turn (an interrupt, a refused permission): the turn end the agent sends
   * after it is not a completion, so it is idle, not done. New activity of the turn clears it.
   */
  private stoppedBy: string | null = null;

  // the agent's status file (Claude Code)
  private status: { s: AgentStatus; at: number } | null = null;
  /** A hook came from this process: the status file then only fills what hooks cannot say. */
  private hooksSeen = false;
  /** When the status file's idle, not a key or a hook, ended the turn as stopped. */
  private statusStopAt = -Infinity;
  /** A turn end hook came late for a turn the status file had ended: publish it as a completion. */
  private lateCompletion = false;

  // the usage limit (docs/lifecycle.md)
  private limit: LimitFact | null = null;
  /** The last limit sighting taken from the screen: seen again, it is not news. */
  private limitKey: string | null = null;
  /** The limit's reset passed in this advance (handed out once, with the update). */
  private lapsed: { words: string; resetAt: number } | null = null;

  // reports
  private seqs = new SeqBook();
  /** report_metadata's own counters per source (herdr's metadata_tokens.rs); unsequenced is always fresh. */
  private metaSeqs = new SeqBook();
  private custom: { source: string; agent: string; state: ReportState; message: string | null; at: number } | null = null;
  private lifecycle: { source: string; state: ReportState; message: string | null; at: number; sessionId: string | null } | null = null;
  private conversation: { id: string; from: ConversationOrigin; owner: string | null } | null = null;
  private readonly presentation = new Presentation();

  // published
  private pubEngine: EngineState | 'exited' | 'limited' = 'unknown';
  private pubState: AgentState = 'unknown';
  private pubAuthority: Authority = 'none';
  private pubReason = 'no agent process yet';
  private pubBackground = false;
  private since: number;
  private seenFlag = true;
  private activeSinceIdle = false;
  private turnAt: number | null = null;
  private pending: PendingTimer[] = [];
  private lastKey = '';

  constructor(opts: ArbiterOptions) {
    this.agent = canonicalAgent(opts.agent);
    this.clock = opts.clock;
    this.defaultHasIdleRules = opts.hasIdleRules ?? true;
    this.idleAfterMs = Math.max(0, opts.idleAfterMs ?? DEFAULT_IDLE_AFTER_MS);
    this.since = opts.clock();
    if (opts.conversationId !== undefined && validSessionId(opts.conversationId)) {
      this.conversation = { id: opts.conversationId.trim(), from: 'launch', owner: null };
    }
    this.lastKey = this.key();
  }

  // ------------------------------------------------------------------ inputs

  /** The agent's process was detected (started or restarted). `grace: false` when re-attaching to a running agent. */
  processStart(opts: { grace?: boolean } = {}): ArbiterUpdate {
    const now = this.clock();
    this.proc = 'running';
    this.graceUntil = opts.grace === false ? -Infinity : now + STARTUP_GRACE_MS;
    this.resetTurnState();
    this.resetScreen();
    this.custom = null; // reported state lasts until released or the agent restarts
    this.lifecycle = null;
    // A new process is a new owner: the last one's conversation (and its sequence numbers) go
    // with it, so the new one's report is taken even where an id cannot be replaced (herdr frees
    // it when its owner exits). An exited window keeps it until then, for `nerdr restore`.
    this.conversation = null;
    this.seqs.clear();
    this.metaSeqs.clear();
    this.presentation.forgetAgent(this.agent, (s) => classifySource(s, this.agent) !== 'custom');
    this.activeSinceIdle = false;
    this.seenFlag = true;
    this.status = null;
    this.hooksSeen = false;
    this.limit = null; // a new process knows its own limit
    this.limitKey = null;
    return this.advance(now);
  }

  /** The agent's process exited. */
  processExit(): ArbiterUpdate {
    const now = this.clock();
    this.proc = 'exited';
    this.resetTurnState();
    this.lifecycle = null;
    if (this.custom && KNOWN_AGENTS.has(this.custom.agent)) this.custom = null;
    this.status = null;
    this.limit = null;
    this.seqs.clear(); // herdr resets official per-source counters on exit; custom ones restart with the process too
    this.metaSeqs.clear();
    // herdr: an exited agent's metadata goes (its own label's, its official sources')
    this.presentation.forgetAgent(this.agent, (s) => classifySource(s, this.agent) !== 'custom');
    return this.advance(now);
  }

  /** A new manifest evaluation of the screen. Call it whenever detect evaluated (on output / resize). */
  screen(e: ScreenEvaluation): ArbiterUpdate {
    const now = this.clock();
    if (e.skipStateUpdate) return this.advance(now); // transcript viewers, pickers: say nothing
    const prev = this.ev;
    if (prev === null || prev.hash !== e.hash) this.hashChangedAt = now;
    if (e.state === 'idle') { if (prev === null || prev.state !== 'idle') this.idleSince = now; } else this.idleSince = -Infinity;
    if (e.state === 'working') { if (prev === null || prev.state !== 'working') this.workingSince = now; } else this.workingSince = -Infinity;
    if (e.state !== 'blocked' && prev !== null && prev.state === 'blocked') this.blockerGoneAt = now;
    this.screenLimit(e, now);
    this.ev = e;
    this.evAt = now;
    this.quietEv = null; // a manifest reads this screen now
    return this.advance(now);
  }

  /**
   * A new look at a screen no manifest reads (docs/state-rules.md, "The quiet rule"): the program
   * is idle once its output is quiet for `idleAfterMs` with the cursor on an input line.
   */
  quietScreen(e: QuietEvaluation): ArbiterUpdate {
    const now = this.clock();
    const prev = this.quietEv;
    if (prev === null) this.quietChangedAt = now;
    else if (prev.hash !== e.hash) {
      this.quietChangedAt = now;
      // what a program draws as it starts is not work (its first idle is no completion); what it
      // writes once it has waited for input is, however soon
      if (now >= this.graceUntil || this.quietIdled) this.quietOutputAt = now;
    }
    this.quietEv = e;
    this.ev = null;
    return this.advance(now);
  }

  /** A normalised hook fact (see src/integrations/events). */
  hookFact(f: HookFact): ArbiterUpdate {
    const now = this.clock();
    if (this.proc === 'exited') return this.advance(now); // late events after the exit
    this.applyHook(f, now);
    return this.advance(now);
  }

  /**
   * The agent's status file changed (or was first read; null: it is gone). Where hooks report,
   * it only says what they cannot: that a turn ended with no turn-end hook (Esc, a refused
   * permission), and that a dialog is open or answered. Without hooks it stands in for them.
   */
  agentStatus(s: AgentStatus | null): ArbiterUpdate {
    const now = this.clock();
    if (this.proc === 'exited') return this.advance(now);
    const old = this.status;
    // the same status written again (another field changed) is no news; a new write time is
    const same = s !== null && old !== null && old.s.status === s.status && old.s.updatedAt === s.updatedAt;
    this.status = s ? { s, at: same ? old.at : now } : null;
    // the status before this one tells a refused dialog (waiting → idle) from a turn end
    if (s && !same) this.applyStatus(s, old?.s.status ?? null, now);
    return this.advance(now);
  }

  /** herdr `pane.report_agent`. */
  report(r: AgentReport): ArbiterUpdate {
    const now = this.clock();
    const accepted = this.applyReport(r, now);
    return { ...this.advance(now), accepted };
  }

  /** herdr `pane.report_agent_session`. */
  reportSession(r: SessionReport): ArbiterUpdate {
    const now = this.clock();
    const accepted = this.applySessionReport(r, now);
    return { ...this.advance(now), accepted };
  }

  /** herdr `pane.report_metadata`: display only (title, display name, state labels, tokens). */
  metadata(r: MetadataReport & { seq?: string | bigint | number }): ArbiterUpdate {
    const now = this.clock();
    if (this.proc === 'exited' && this.metadataForExited(r)) return { ...this.advance(now), accepted: false };
    if (r.seq !== undefined) {
      const seq = parseSeq(r.seq);
      if (seq === undefined || !this.metaSeqs.accept(r.source, seq)) return { ...this.advance(now), accepted: false };
    }
    const res = this.presentation.report(r, now);
    return { ...this.advance(now), accepted: res.error === undefined, ...(res.error ? { error: res.error } : {}) };
  }

  /** herdr drops metadata about an agent whose exit it saw: its label, or its official sources. */
  private metadataForExited(r: MetadataReport): boolean {
    const official = (s: string | undefined) => s !== undefined && classifySource(s, this.agent) !== 'custom';
    return r.agent === this.agent || official(r.source) || official(r.appliesToSource);
  }

  /** herdr `pane.release_agent`. */
  release(r: ReleaseReport): ArbiterUpdate {
    const now = this.clock();
    const accepted = this.applyRelease(r);
    return { ...this.advance(now), accepted };
  }

  /** The user has seen the window (active window of a focused client for 1 s): done → idle. */
  seen(): ArbiterUpdate {
    const now = this.clock();
    this.seenFlag = true;
    return this.advance(now);
  }

  /** Set the conversation id nerdr chose at launch (e.g. `claude --session-id`). Reported/hook ids win. */
  setLaunchConversation(id: string, from: 'launch' | 'guess' = 'launch'): ArbiterUpdate {
    const now = this.clock();
    if (validSessionId(id) && (this.conversation === null || this.conversation.from === 'launch' || this.conversation.from === 'guess')) {
      this.conversation = { id: id.trim(), from, owner: null };
    }
    return this.advance(now);
  }

  /** Re-evaluate timers. Call at (or after) the returned deadline. */
  tick(): ArbiterUpdate {
    return this.advance(this.clock());
  }

  view(): ArbiterView {
    const subagents = this.subagentCount();
    const rep = this.lifecycle
      ? { source: this.lifecycle.source, class: 'full-lifecycle' as SourceClass, state: this.lifecycle.state, message: this.lifecycle.message, at: this.lifecycle.at }
      : this.custom
        ? { source: this.custom.source, class: 'custom' as SourceClass, state: this.custom.state, message: this.custom.message, at: this.custom.at }
        : null;
    return {
      agent: this.agent,
      state: this.pubState,
      engineState: this.pubEngine,
      authority: this.pubAuthority,
      reason: this.pubReason,
      since: this.since,
      seen: this.seenFlag,
      background: this.pubBackground,
      subagents,
      backgroundTasks: this.bgTasks,
      conversationId: this.conversation?.id ?? null,
      conversationFrom: this.conversation?.from ?? null,
      conversationOwner: this.conversation?.owner ?? null,
      reportedAgent: this.custom && this.custom.agent !== this.agent ? this.custom.agent : null,
      presentation: this.presentationView(this.clock()),
      pending: this.pending.map((p) => ({ ...p })),
      hookPhase: this.hook?.phase ?? null,
      screen: {
        state: this.screenState,
        lastEvaluation: this.ev ? this.evAt : null,
        unchangedSince: this.ev ? this.hashChangedAt : null,
        rule: this.ev?.rule ?? null,
      },
      report: rep,
      limit: this.limit ? { ...this.limit } : null,
      status: this.status ? { status: this.status.s.status, waitingFor: this.status.s.waitingFor ?? null, file: this.status.s.file ?? null, at: this.status.at } : null,
      quiet: this.quietVerdict !== null && this.quietEv !== null
        ? { idleAfterMs: this.idleAfterMs, verdict: this.quietVerdict, prompt: this.quietEv.prompt, inputWhy: this.quietEv.why, changedAt: this.quietChangedAt, why: this.screenWhy }
        : null,
    };
  }

  /**
   * What cannot be recomputed from the screen: the conversation id, the hook phase, the
   * subagent and background-task counts, a reported state. The supervisor keeps this on the
   * window (a tmux option) so that a new supervisor can carry on after a crash.
   */
  facts(): PersistedFacts {
    const f: PersistedFacts = { v: 1, subagents: this.subagentCount(), backgroundTasks: this.bgTasks, seen: this.seenFlag, active: this.activeSinceIdle, turnAt: this.turnAt };
    if (this.conversation) f.conversation = { ...this.conversation };
    if (this.hook) f.hook = { phase: this.hook.phase, why: this.hook.why };
    if (this.custom) f.report = { source: this.custom.source, agent: this.custom.agent, state: this.custom.state, message: this.custom.message };
    if (this.limit) f.limit = { words: this.limit.words, resetAt: this.limit.resetAt, resetText: this.limit.resetText, from: this.limit.from, ...(this.limit.over ? { over: true } : {}) };
    if (this.limitKey !== null) f.limitKey = this.limitKey;
    return f;
  }

  /** When the agent last went from idle to working or blocked (the clock's ms), or null: kept across restarts. */
  get lastTurnAt(): number | null {
    return this.turnAt;
  }

  /** Takes back facts saved by facts(), for an agent that was running all along. */
  restoreFacts(f: PersistedFacts): ArbiterUpdate {
    const now = this.clock();
    if (f.conversation && validRef(f.conversation.id)) this.conversation = { ...f.conversation };
    this.subagentIds.clear();
    this.anonSubagents = Math.max(0, Math.floor(f.subagents) || 0);
    this.bgTasks = Math.max(0, Math.floor(f.backgroundTasks) || 0);
    if (f.hook) {
      this.hook = { phase: f.hook.phase, at: now, why: `${f.hook.why} (before the supervisor restarted)` };
      this.hooksSeen = true;
    }
    if (f.report && REPORT_STATES.has(f.report.state)) {
      this.custom = { source: f.report.source, agent: f.report.agent, state: f.report.state, message: f.report.message, at: now };
    }
    this.seenFlag = f.seen;
    // a turn that was under way, or ended unseen, when the last supervisor went: the first idle
    // screen this one sees completes it (done), as it would have without the restart
    this.activeSinceIdle = f.active === true || f.seen === false;
    if (typeof f.turnAt === 'number' && Number.isFinite(f.turnAt)) this.turnAt = f.turnAt;
    const l = f.limit;
    if (l && typeof l.words === 'string' && (l.resetAt === null || (typeof l.resetAt === 'number' && Number.isFinite(l.resetAt)))) {
      this.limit = { words: l.words, resetAt: l.resetAt, resetText: typeof l.resetText === 'string' ? l.resetText : null, from: l.from === 'screen' ? 'screen' : 'hook', at: now, ...(l.over === true && l.resetAt !== null ? { over: true } : {}) };
    }
    if (typeof f.limitKey === 'string') this.limitKey = f.limitKey;
    return this.advance(now);
  }

  nextDeadline(): number | null {
    let d: number | null = null;
    for (const p of this.pending) if (d === null || p.at < d) d = p.at;
    return d;
  }

  // ------------------------------------------------------------------ hooks

  private subagentCount(): number {
    return this.subagentIds.size + this.anonSubagents;
  }

  private resetTurnState(): void {
    this.hook = null;
    this.subagentIds.clear();
    this.anonSubagents = 0;
    this.bgTasks = 0;
    this.stoppedBy = null;
  }

  private resetScreen(): void {
    this.ev = null;
    this.evAt = this.hashChangedAt = this.idleSince = this.workingSince = this.blockerGoneAt = -Infinity;
    this.screenState = 'unknown';
    this.screenWhy = 'no screen evaluation yet';
    this.quietEv = null;
    this.quietChangedAt = this.quietOutputAt = -Infinity;
    this.quietVerdict = null;
    this.quietIdled = false;
  }

  private applyHook(f: HookFact, now: number): void {
    let subagent = f.subagent === true;
    const cid = f.conversationId;
    if (f.kind === 'session-start') {
      if (cid !== undefined && validSessionId(cid)) {
        const c = this.conversation;
        // A hook's session start names the conversation now running; a reported id from an official owner
        // is replaced only by a real (re)start, which is what a session-start fact is (compaction is dropped).
        if (c === null || c.id !== cid) this.conversation = { id: cid, from: 'hook', owner: null };
      }
      this.resetTurnState();
      return;
    }
    if (cid !== undefined && this.conversation !== null && this.conversation.id !== cid && f.kind !== 'session-end') {
      // Another conversation (child session, internal title turn): treat like a subagent.
      subagent = true;
    } else if (cid !== undefined && this.conversation === null && validSessionId(cid) && !subagent) {
      this.conversation = { id: cid, from: 'hook', owner: null };
    }
    if (subagent && f.kind !== 'permission' && f.kind !== 'question' && f.kind !== 'answered') return;
    this.lastHookAt = now;
    this.hooksSeen = true;

    const set = (phase: HookPhase, why: string): void => { this.hook = { phase, at: now, why }; };
    const detail = f.detail ? ` (${f.detail})` : '';
    // the agent goes on after the user stopped something: that turn's end is a completion again
    if (f.kind === 'prompt-submit' || f.kind === 'turn-start' || f.kind === 'tool') this.stoppedBy = null;
    // the agent works (or asks) again: it is past its limit
    if (!subagent && (f.kind === 'prompt-submit' || f.kind === 'turn-start' || f.kind === 'tool' || f.kind === 'permission' || f.kind === 'question')) this.limit = null;
    switch (f.kind) {
      case 'prompt-submit':
        set('working', f.scheduled ? `${f.event}: a scheduled wakeup started a turn` : `${f.event}: prompt submitted`);
        break;
      case 'turn-start':
        set('working', `${f.event}: turn started${detail}`);
        break;
      case 'tool':
        if (this.hook?.phase === 'background') break; // activity of the background work itself
        set('working', `${f.event}: agent active${detail}`);
        break;
      case 'answered':
        if (f.denied && !subagent) this.stoppedBy = `${f.event}: permission refused${detail}`;
        if (this.hook === null || this.hook.phase === 'blocked') set('working', `${f.event}: dialog answered${detail}`);
        break;
      case 'permission':
        set('blocked', `${f.event}: waiting for permission${detail}${subagent ? ' (from a subagent)' : ''}`);
        break;
      case 'question':
        set('blocked', `${f.event}: waiting for an answer${detail}${subagent ? ' (from a subagent)' : ''}`);
        break;
      case 'turn-end': {
        if (f.subagentsRunning !== undefined && f.subagentsRunning > this.subagentCount()) {
          this.anonSubagents += f.subagentsRunning - this.subagentCount();
        }
        this.bgTasks = f.backgroundTasks ?? 0;
        const subs = this.subagentCount();
        if (f.limit) {
          this.limit = { words: f.limit.words, resetAt: f.limit.resetAt, resetText: f.limit.resetText, from: 'hook', at: now };
          set('ended', `${f.event}: the turn ended at the usage limit`);
        } else if (subs > 0 || this.bgTasks > 0) {
          set('background', `${f.event}: turn ended but ${subs} subagent(s) and ${this.bgTasks} background task(s) still run`);
        } else if (this.hook?.from === 'status' && this.hook.phase === 'interrupted' && now - this.statusStopAt <= STATUS_LATE_END_MS) {
          // the status file's idle came first and was taken as a stop; the turn end says it completed
          this.stoppedBy = null;
          this.lateCompletion = true;
          set('ended', `${f.event}: turn ended`);
        } else if (this.stoppedBy !== null) {
          // a key press is not a completion (docs/state-rules.md)
          set('interrupted', `${f.event}: turn ended after the user stopped it (${this.stoppedBy})`);
        } else {
          set('ended', `${f.event}: turn ended${f.error ? ' with an error' : ''}`);
        }
        break;
      }
      case 'interrupt':
        this.stoppedBy = `${f.event}: interrupted`;
        set('interrupted', `${f.event}: turn interrupted by the user`);
        break;
      case 'notification-idle':
        if (this.hook !== null && (this.hook.phase === 'working' || this.hook.phase === 'blocked')) {
          // waiting for input with no turn end: the turn was stopped (Qwen's Esc sends only this;
          // Claude's comes a minute after a turn that ended without a Stop)
          this.stoppedBy ??= `${f.event}: waits for input with no turn end`;
          set('interrupted', `${f.event}: the agent waits for input and no turn end came: the turn was stopped`);
        } else if (this.hook === null) set('ended', `${f.event}: agent says it waits for input`);
        break;
      case 'subagent-start':
        if (f.subagentId !== undefined) this.subagentIds.add(f.subagentId);
        else this.anonSubagents++;
        if (this.hook?.phase === 'ended' || this.hook?.phase === 'interrupted') {
          set('background', `${f.event}: a subagent started after the turn ended`);
        }
        break;
      case 'subagent-stop':
        if (f.subagentId !== undefined && this.subagentIds.has(f.subagentId)) this.subagentIds.delete(f.subagentId);
        else if (this.anonSubagents > 0) this.anonSubagents--;
        else if (this.subagentIds.size > 0 && f.subagentId === undefined) {
          const first = this.subagentIds.values().next().value as string;
          this.subagentIds.delete(first);
        }
        if (this.hook?.phase === 'background' && this.subagentCount() === 0 && this.bgTasks === 0) {
          set('ended', `${f.event}: the last background subagent finished`);
        }
        break;
      case 'session-end':
        this.resetTurnState();
        break;
    }
  }

  // ------------------------------------------------------------------ the usage limit

  /**
   * The screen's limit sighting: a new one (not the last one taken) is the limit, unless the
   * screen shows work; new work on screen ends a limit; a limit read from the screen with no
   * reset time lasts while the screen shows it.
   */
  private screenLimit(e: ScreenEvaluation, now: number): void {
    const l = e.limit ?? null;
    const key = l === null ? null : (l.key ?? `${l.words}|${l.resetText ?? ''}`);
    if (l !== null && key !== this.limitKey && e.state !== 'working') {
      this.limitKey = key;
      // the limit a hook just told of, now on screen too, stays the hook's
      if (this.limit?.words !== l.words) this.limit = { words: l.words, resetAt: l.resetAt, resetText: l.resetText, from: 'screen', at: now };
      return;
    }
    const lim = this.limit;
    if (lim === null) return;
    // new work on screen, or a limit of unknown reset that the screen no longer shows
    if ((e.state === 'working' && this.hashChangedAt > lim.at) || (l === null && lim.from === 'screen' && lim.resetAt === null)) this.limit = null;
  }

  // ------------------------------------------------------------------ the status file

  /** A new status from the agent's file (docs/state-rules.md, "The status file"). */
  private applyStatus(s: AgentStatus, prev: AgentStatus['status'] | null, now: number): void {
    const set = (phase: HookPhase, what: string): void => {
      this.hook = { phase, at: now, why: `${this.agent} status file: ${what}`, from: 'status' };
    };
    const h = this.hook;
    const waiting = `waiting${s.waitingFor ? ` (${s.waitingFor})` : ''}`;
    if (!this.hooksSeen) {
      // no hook from this process (hooks off, or a window nerdr did not wire): the file is the source
      if (s.status === 'busy') {
        this.stoppedBy = null;
        set('working', 'busy');
      } else if (s.status === 'waiting') set('blocked', waiting);
      else if (h !== null && h.phase === 'blocked' && prev === 'waiting') {
        // a dialog that gives way to idle with no work in between was refused (an approval works first)
        this.stoppedBy = `${this.agent} status file: the dialog was refused`;
        set('interrupted', 'idle straight after the dialog: it was refused');
      } else if (h !== null && (h.phase === 'working' || h.phase === 'blocked')) set('ended', 'idle: the turn ended');
      return;
    }
    if (s.status === 'busy') this.limit = null; // it works again
    // with hooks: only what they do not say (an idle with no turn end is held in derive())
    if (s.status === 'waiting' && (h === null || h.phase === 'working')) set('blocked', waiting);
    else if (s.status === 'busy' && h?.phase === 'blocked') set('working', 'busy again: the dialog was answered');
  }

  // ------------------------------------------------------------------ reports

  private applyReport(r: AgentReport, now: number): boolean {
    if (typeof r.state !== 'string' || !REPORT_STATES.has(r.state)) return false;
    if (typeof r.source !== 'string' || typeof r.agent !== 'string' || r.agent.trim() === '') return false;
    const seq = r.seq === undefined || r.seq === null ? undefined : parseSeq(r.seq);
    if (r.seq !== undefined && r.seq !== null && seq === undefined) return false;
    const label = canonicalAgent(r.agent);
    const cls = classifySource(r.source, label);
    if (KNOWN_AGENTS.has(label) && label !== this.agent) return false; // names another agent than the one running
    if (cls === 'session-only') return false; // hermes/agy must use report_agent_session
    if (!this.seqs.isFresh(r.source, seq)) return false;
    const state = r.state as ReportState;
    const message = typeof r.message === 'string' ? r.message : null;
    const ref = reportRef(label, cls, r.agentSessionId, r.agentSessionPath);
    if (cls === 'reserved') {
      this.seqs.accept(r.source, seq);
      this.recordSession(r.source, label, ref, undefined);
      return true;
    }
    if (cls === 'full-lifecycle') {
      if (this.proc === 'exited') return false;
      const anchored = this.lifecycle?.sessionId ?? (this.conversation?.owner === r.source ? this.conversation.id : null);
      if (anchored !== null && ref !== undefined && ref !== anchored) return false;
      this.seqs.accept(r.source, seq);
      this.lifecycle = { source: r.source, state, message, at: now, sessionId: anchored ?? ref ?? null };
      if (ref !== undefined) this.recordSession(r.source, label, ref, undefined);
      return true;
    }
    // custom
    if (this.proc === 'exited' && KNOWN_AGENTS.has(label)) return false;
    if (this.conversation?.owner && this.conversation.owner !== r.source && this.conversation.from === 'report') return false;
    this.seqs.accept(r.source, seq);
    this.custom = { source: r.source, agent: label, state, message, at: now };
    return true;
  }

  private applySessionReport(r: SessionReport, now: number): boolean {
    void now;
    if (typeof r.source !== 'string' || typeof r.agent !== 'string' || r.agent.trim() === '') return false;
    const seq = r.seq === undefined || r.seq === null ? undefined : parseSeq(r.seq);
    if (r.seq !== undefined && r.seq !== null && seq === undefined) return false;
    const label = canonicalAgent(r.agent);
    const cls = classifySource(r.source, label);
    if (cls === 'custom') return false; // only official pairs carry session references
    if (KNOWN_AGENTS.has(label) && label !== this.agent) return false;
    const start = r.sessionStartSource?.trim();
    const startSource = start !== undefined && START_SOURCES.has(start) ? start : undefined;
    // opencode's TUI plugin reports the conversation the user selects (/new, /sessions) with no seq
    const bypass = herdrRules(label)?.unsequencedSelect === true && startSource === 'select' && seq === undefined;
    if (!bypass && !this.seqs.isFresh(r.source, seq)) return false;
    const ref = reportRef(label, cls, r.agentSessionId, r.agentSessionPath);
    if (ref === undefined) return false;
    if (!bypass) this.seqs.accept(r.source, seq);
    const ok = this.recordSession(r.source, label, ref, startSource);
    const life = this.lifecycle;
    if (ok && cls === 'full-lifecycle' && life !== null && life.source === r.source) {
      // Another conversation now: the state reported for the last one is not this one's (herdr
      // drops that authority too). The screen decides until the new conversation reports; reports
      // that still name the old one no longer match the anchor and are dropped.
      if (life.sessionId !== null && life.sessionId !== ref) this.lifecycle = null;
      else if (startSource !== undefined) life.sessionId = ref;
    }
    return ok;
  }

  /** Store a reported session id following herdr's replacement rules. */
  private recordSession(source: string, label: string, id: string | undefined, startSource: string | undefined): boolean {
    if (!validRef(id)) return false;
    const v = id.trim();
    const c = this.conversation;
    if (c === null || c.id === v) { this.conversation = { id: v, from: 'report', owner: source }; return true; }
    if (c.from === 'report' && c.owner === source) {
      if (!mayReplaceSession(label, startSource)) return false;
    } else if (c.from === 'report') {
      // A different official owner takes over only with a recognised start source.
      if (startSource === undefined || startSource === 'branch') return false;
    }
    // ids from the launch or from hooks are guesses compared with a report: reported ids take precedence.
    this.conversation = { id: v, from: 'report', owner: source };
    return true;
  }

  private applyRelease(r: ReleaseReport): boolean {
    if (typeof r.source !== 'string' || typeof r.agent !== 'string') return false;
    const seq = r.seq === undefined || r.seq === null ? undefined : parseSeq(r.seq);
    if (r.seq !== undefined && r.seq !== null && seq === undefined) return false;
    const label = canonicalAgent(r.agent);
    if (classifySource(r.source, label) !== 'custom') return false; // official identity follows the process
    const c = this.custom;
    if (c !== null && (c.source !== r.source || c.agent !== label)) return false;
    const effective = c?.agent ?? this.agent;
    const ownsSession = this.conversation?.owner === r.source;
    if (effective !== label && !ownsSession) return false;
    if (!this.seqs.accept(r.source, seq)) return false;
    this.custom = null;
    if (ownsSession) this.conversation = null;
    return true;
  }

  // ------------------------------------------------------------------ derivation

  private hasIdleRules(): boolean {
    return this.ev?.hasIdleRules ?? this.defaultHasIdleRules;
  }

  private isFallback(e: ScreenEvaluation): boolean {
    return e.fallback ?? (e.state === 'idle' && !e.visibleIdle && !e.visibleBlocker && !e.visibleWorking);
  }

  /** Screen path (docs/state-rules.md): advances `screenState` with its timers. */
  private runScreen(now: number, timers: PendingTimer[]): void {
    this.quietVerdict = null;
    if (this.proc === 'exited') { this.screenState = 'unknown'; this.screenWhy = 'process exited'; return; }
    // the quiet rule waits for quiet output itself: no grace before it
    if (this.quietEv !== null) return this.runQuietRule(this.quietEv, now, timers);
    if (now < this.graceUntil) {
      this.screenState = 'unknown';
      this.screenWhy = 'startup grace: the screen is not read yet';
      timers.push({ name: 'startup-grace', at: this.graceUntil, what: 'start reading the screen' });
      return;
    }
    const e = this.ev;
    if (e === null) {
      this.screenWhy = 'no screen evaluation yet'; // not the grace's reason once it is over
      return;
    }
    const prev = this.screenState;
    switch (e.state) {
      case 'blocked':
        this.screenState = 'blocked';
        this.screenWhy = `screen shows a ${e.visibleBlocker ? 'visible ' : ''}blocker${e.rule ? ` (${e.rule})` : ''}`;
        return;
      case 'working':
        this.screenState = 'working';
        this.screenWhy = `screen shows work${e.rule ? ` (${e.rule})` : ''}`;
        return;
      case 'unknown':
        if (prev !== 'working') { this.screenState = 'unknown'; this.screenWhy = 'screen matches no known state'; }
        else this.screenWhy = 'screen unknown: a working agent stays working';
        return;
      case 'idle':
        break;
    }
    if (prev === 'idle') return;
    const fallback = this.isFallback(e);
    const unchangedSince = this.hashChangedAt;
    if (fallback && !this.hasIdleRules()) {
      const at = unchangedSince + FALLBACK_IDLE_MS;
      if (now >= at) { this.screenState = 'idle'; this.screenWhy = `no rule matches and the screen is unchanged for ${FALLBACK_IDLE_MS / 1000} s (manifest has no idle rule)`; }
      else timers.push({ name: 'fallback-idle', at, what: 'an unmatched, unchanged screen counts as idle' });
      return;
    }
    if (prev === 'working') {
      const a = unchangedSince + DONE_UNCHANGED_MS;
      const b = this.idleSince + DONE_IDLE_MS;
      if (now >= a) { this.screenState = 'idle'; this.screenWhy = `screen idle and unchanged for ${DONE_UNCHANGED_MS / 1000} s`; }
      else if (now >= b) { this.screenState = 'idle'; this.screenWhy = `screen idle for ${DONE_IDLE_MS / 1000} s`; }
      else timers.push({ name: 'done-confirm', at: Math.min(a, b), what: 'working → idle if the screen stays idle' });
      return;
    }
    // unknown/blocked → idle
    if (e.visibleIdle) { this.screenState = 'idle'; this.screenWhy = `screen shows a visible idle prompt${e.rule ? ` (${e.rule})` : ''}`; return; }
    const at = this.idleSince + PENDING_IDLE_HOLD_MS;
    if (now >= at) { this.screenState = 'idle'; this.screenWhy = 'screen idle (held briefly, no visible idle evidence)'; }
    else timers.push({ name: 'pending-idle', at, what: 'publish idle if the screen stays idle' });
  }

  /** The quiet rule (docs/state-rules.md): output flowing, idle at an input line, or cannot tell. */
  private runQuietRule(q: QuietEvaluation, now: number, timers: PendingTimer[]): void {
    const after = this.idleAfterMs;
    const s = `${after / 1000} s`;
    const set = (verdict: QuietVerdict, state: EngineState, why: string): void => {
      this.quietVerdict = verdict;
      this.screenState = state;
      this.screenWhy = why;
    };
    if (after <= 0) return set('off', 'unknown', 'no manifest knows this program and its quiet rule is off (idle after 0 s): nerdr cannot tell when it waits for input');
    const timer = (at: number): void => void timers.push({ name: 'quiet-idle', at, what: `its output quiet for ${s}: idle if the cursor is on an input line` });
    if (now < this.quietOutputAt + after) {
      timer(this.quietOutputAt + after);
      return set('output', 'working', `output flowing: its screen changed within the last ${s} (no manifest knows this program, so this is output, not an agent's turn)`);
    }
    if (now < this.quietChangedAt + after) {
      timer(this.quietChangedAt + after);
      return set('pending', 'unknown', `no manifest knows this program: idle once its output is quiet for ${s} with the cursor on an input line`);
    }
    if (q.prompt !== null) {
      this.quietIdled = true;
      return set('idle', 'idle', `its output quiet for ${s} with the cursor on an input line (after ${JSON.stringify(q.prompt)})`);
    }
    if (this.quietIdled) return set('silent', 'unknown', `its output quiet for ${s}, but ${q.why}: it may be working without output (it waited at an input line before, so a message waits for the next one)`);
    set('unsure', 'unknown', `its output quiet for ${s}, but ${q.why}, and it has not waited at an input line since it started: nerdr cannot tell whether it waits for input (no manifest knows this program)`);
  }

  private screenActive(now: number): boolean {
    return this.ev !== null && now >= this.graceUntil && this.proc !== 'exited';
  }

  /** Combine process, reports, screen and hooks into one engine state. May drop a contradicted hook phase. */
  private derive(now: number, timers: PendingTimer[]): Derived {
    const d = (engine: EngineState | 'exited' | 'limited', authority: Authority, reason: string, quiet = false, background = false): Derived =>
      ({ engine, authority, reason, quiet, background });
    if (this.proc === 'exited') return d('exited', 'process', 'the agent process exited');
    // the reset is handed out when it comes, whatever outranks the limit meanwhile (a dialog, a report)
    const lim = this.limit;
    const dialogUp = this.ev !== null && this.ev.limitDialog === true && this.ev.state === 'blocked';
    if (lim !== null && lim.resetAt !== null && !lim.over) {
      if (now >= lim.resetAt) {
        this.lapsed = { words: lim.words, resetAt: lim.resetAt };
        // the agent's own dialog about the limit, still open, stays the limit's until it closes
        // (`on_limit = "resume"` closes it): neither a question nor, once closed, a completion
        this.limit = dialogUp ? { ...lim, over: true } : null;
      } else timers.push({ name: 'limit-reset', at: lim.resetAt, what: 'the usage limit resets: limited → idle' });
    } else if (lim?.over && !dialogUp) this.limit = null;
    if (this.lifecycle) return d(this.lifecycle.state, 'lifecycle', `full-lifecycle report from ${this.lifecycle.source}: ${this.lifecycle.state}${this.lifecycle.message ? ` — ${this.lifecycle.message}` : ''}`);
    const e = this.ev;
    const screenOn = this.screenActive(now);
    const visibleBlocker = screenOn && e !== null && e.visibleBlocker && e.state === 'blocked';
    if (this.custom) {
      const c = this.custom;
      if (visibleBlocker && c.state !== 'blocked' && this.evAt >= c.at) {
        return d('blocked', 'screen', `a dialog is visible on screen (report from ${c.source} said ${c.state})`);
      }
      return d(c.state, 'report', `reported by ${c.source}: ${c.state}${c.message ? ` — ${c.message}` : ''}`);
    }
    const limit = this.limit;
    // the agent's own dialog about its limit (wait or upgrade) is the limit's, not a question
    const limitDialog = limit !== null && visibleBlocker && e?.limitDialog === true;
    if (visibleBlocker && !limitDialog) return d('blocked', 'screen', `a dialog is visible on screen${e?.rule ? ` (${e.rule})` : ''}`);
    if (limit?.over) return d('limited', 'screen', `the usage limit reset at ${new Date(limit.resetAt!).toISOString()}, but the agent's own dialog about it is still open (${JSON.stringify(limit.words)})`);
    if (limit !== null) {
      const when = limit.resetAt !== null ? `it resets ${new Date(limit.resetAt).toISOString()}` : 'its reset time is unknown';
      return d('limited', limit.from, `${limit.from === 'hook' ? 'a hook' : 'the screen'} says the usage limit is reached (${JSON.stringify(limit.words)}); ${when}${limitDialog ? '; its dialog about the limit is open' : ''}`);
    }

    let h = this.hook;
    const st = this.status;
    if (h !== null && this.hooksSeen && st !== null && st.s.status === 'idle' && st.at >= h.at && (h.phase === 'working' || h.phase === 'blocked')) {
      // the file went idle after the hooks' last word, and no turn end came: the user stopped it
      const at = st.at + STATUS_IDLE_HOLD_MS;
      if (now >= at) {
        const what = h.phase === 'blocked' ? 'the dialog was refused' : 'the turn was stopped';
        this.stoppedBy = `${this.agent} status file: ${what}`;
        this.statusStopAt = now;
        this.hook = h = { phase: 'interrupted', at: now, why: `${this.agent} status file: idle for ${STATUS_IDLE_HOLD_MS / 1000} s with no turn end: ${what}`, from: 'status' };
      } else timers.push({ name: 'status-idle', at, what: 'the status file says idle: with no turn end by then, the user stopped the turn' });
    }
    if (h !== null && screenOn && e !== null) {
      const idleCandidate = e.state === 'idle' && !e.visibleWorking;
      const fallbackNoIdle = this.isFallback(e) && !this.hasIdleRules();
      switch (h.phase) {
        case 'blocked': {
          if (e.state !== 'blocked') {
            const at = Math.max(h.at, this.blockerGoneAt) + ANSWERED_MS;
            if (now >= at) {
              if (e.state === 'working') {
                // Answered and the agent works on: its turn end now comes from a hook, or an idle,
                // unchanged screen means it was stopped (a deny that passes through a working frame).
                this.hook = { phase: 'working', at: now, why: `no dialog on screen for ${ANSWERED_MS / 1000} s after "${h.why}" and the screen shows work: answered` };
                return d('working', 'hook', this.hook.why);
              }
              this.hook = null;
              return { ...this.screenResult(), quiet: true, reason: `no dialog on screen for ${ANSWERED_MS / 1000} s after "${h.why}": answered; ${this.screenWhy}` };
            }
            timers.push({ name: 'answered', at, what: 'the dialog counts as answered if it stays off screen' });
          }
          break;
        }
        case 'working': {
          if (idleCandidate) {
            const wait = fallbackNoIdle ? FALLBACK_IDLE_MS : INTERRUPTED_IDLE_MS;
            const at = Math.max(h.at, this.hashChangedAt, this.idleSince) + wait;
            if (now >= at) {
              this.hook = null;
              return { ...this.screenResult(), quiet: true, reason: `screen idle and unchanged for ${wait / 1000} s with no turn end: interrupted; ${this.screenWhy}` };
            }
            timers.push({ name: 'interrupted', at, what: 'an idle, unchanged screen means the turn was interrupted' });
          }
          break;
        }
        case 'ended':
        case 'interrupted': {
          if (e.state === 'working') {
            const at = Math.max(h.at, this.workingSince) + HOOK_IDLE_CONTRADICTED_MS;
            if (now >= at) {
              this.hook = null;
              return { ...this.screenResult(), reason: `screen shows work for ${HOOK_IDLE_CONTRADICTED_MS / 1000} s after the turn ended: ${this.screenWhy}` };
            }
            timers.push({ name: 'activity-after-end', at, what: 'screen work after the turn end takes over' });
          }
          break;
        }
        case 'background': {
          if (idleCandidate) {
            const wait = this.subagentCount() > 0 ? BACKGROUND_STALE_MS : fallbackNoIdle ? FALLBACK_IDLE_MS : DONE_UNCHANGED_MS;
            const at = Math.max(h.at, this.hashChangedAt) + wait;
            if (now >= at) {
              this.hook = null;
              this.bgTasks = 0;
              if (this.subagentCount() > 0) { this.subagentIds.clear(); this.anonSubagents = 0; }
              return { ...this.screenResult(), reason: `background work no longer shows: screen idle and unchanged for ${wait / 1000} s; ${this.screenWhy}` };
            }
            timers.push({ name: 'background-settle', at, what: 'background work counts as finished if the screen stays idle' });
          }
          break;
        }
      }
    }
    if (h !== null) {
      const by: Authority = h.from === 'status' ? 'status' : 'hook';
      switch (h.phase) {
        case 'working': return d('working', by, h.why);
        case 'blocked': return d('blocked', by, h.why);
        case 'ended': return d('idle', by, h.why);
        case 'interrupted': return d('idle', by, h.why, true);
        case 'background': return d('working', by, h.why, false, true);
      }
    }
    return this.screenResult();
  }

  private screenResult(): Derived {
    if (this.proc === 'none' && this.ev === null) return { engine: 'unknown', authority: 'none', reason: 'no agent process yet', quiet: false, background: false };
    return { engine: this.screenState, authority: 'screen', reason: this.screenWhy, quiet: false, background: false };
  }

  private advance(now: number): ArbiterUpdate {
    const timers: PendingTimer[] = [];
    this.runScreen(now, timers);
    const dv = this.derive(now, timers);
    this.presentation.expire(now);
    const expiry = this.presentation.nextExpiry(now);
    if (expiry !== null) timers.push({ name: 'metadata-expiry', at: expiry, what: 'reported metadata (title, labels, tokens) expires' });
    // Timers already due were acted on; keep only the future ones (and only the screen timers that still matter).
    this.pending = timers.filter((t) => t.at > now);

    const prevEngine = this.pubEngine;
    const prevState = this.pubState;
    if (this.lateCompletion) {
      // a turn end after the status file had called the turn stopped: it completed after all
      this.lateCompletion = false;
      if (dv.engine === 'idle' && prevEngine === 'idle' && !dv.quiet) this.seenFlag = false;
    }
    if (dv.engine === 'idle') {
      if (prevEngine !== 'idle') {
        // Completion: idle reached after work (not the first idle after startup, not an idle the
        // user caused). A dialog that gives way to an idle screen at once, or after at most a
        // working frame and no hook, was dismissed by the user (approving it makes the agent work
        // for a while, with hooks where it has them): not a completion either.
        const idleSoonAfterDialog = this.idleSince >= this.blockerGoneAt && this.idleSince - this.blockerGoneAt <= DISMISSED_WORK_MS && this.lastHookAt < this.blockerGoneAt;
        const dismissed = dv.authority === 'screen' && (prevEngine === 'blocked' || idleSoonAfterDialog);
        const completion = this.activeSinceIdle && !dv.quiet && !dismissed;
        this.seenFlag = !completion;
        this.activeSinceIdle = false;
      }
    } else if (dv.engine === 'working' || dv.engine === 'blocked') {
      this.seenFlag = true;
      if (!this.activeSinceIdle) this.turnAt = now;
      this.activeSinceIdle = true;
    } else if (dv.engine === 'exited' || dv.engine === 'limited') {
      // a limit ends a turn with nothing done: the idle after its reset is no completion
      this.activeSinceIdle = false;
      this.seenFlag = true;
    }
    const state: AgentState = dv.engine === 'idle' ? (this.seenFlag ? 'idle' : 'done') : dv.engine;
    this.pubEngine = dv.engine;
    this.pubState = state;
    this.pubAuthority = dv.authority;
    this.pubReason = state === 'done' ? `${dv.reason} (not seen yet)` : dv.reason;
    this.pubBackground = dv.background;
    if (state !== prevState) this.since = now;

    const key = this.key();
    let change: ArbiterChange | null = null;
    if (key !== this.lastKey) {
      change = { at: now, from: prevState, to: state, stateChanged: state !== prevState, authority: dv.authority, reason: this.pubReason };
      this.lastKey = key;
    }
    const lapsed = this.lapsed;
    this.lapsed = null;
    return { view: this.view(), change, deadline: this.nextDeadline(), ...(lapsed ? { limitLapsed: lapsed } : {}) };
  }

  private key(): string {
    const shown = JSON.stringify([this.custom?.agent ?? null, this.presentationView(this.clock())]);
    return [this.pubState, this.pubBackground, this.subagentCount(), this.bgTasks, this.conversation?.id ?? '', this.limit?.resetAt ?? '', this.limit?.words ?? '', shown].join('|');
  }

  private presentationView(now: number): PresentationView {
    return this.presentation.view(now, { agent: this.custom?.agent ?? this.agent, authority: this.lifecycle?.source ?? this.custom?.source ?? null });
  }
}
