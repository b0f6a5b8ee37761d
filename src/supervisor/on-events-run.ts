// Running `[[on]]` commands: never through a shell, never blocking the supervisor, a few at once
// (the rest queued, a bounded queue), each ended at its timeout (SIGTERM to its process group,
// SIGKILL a moment later). The process and the clock come in from outside, so the unit tests run
// it without a process. docs/on-events.md.

import { spawn } from 'node:child_process';
import os from 'node:os';
import { visible } from '../text.js';
import type { Clock, Timer } from './clock.js';

/** At most this many commands run at once. */
export const RUN_MAX = 4;
/** At most this many wait; one more is dropped (and logged). */
export const QUEUE_MAX = 32;
/** From SIGTERM to SIGKILL. */
export const KILL_AFTER_MS = 2000;
const STDERR_TAIL = 4096;

export interface RunSpec {
  argv: string[];
  /** The whole environment of the process. */
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
}

export interface RunOutcome {
  ok: boolean;
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  /** The spawn failed (ENOENT, EACCES …). */
  error: string | null;
  /** The last line it wrote to stderr, control characters made visible. */
  stderrLine: string;
  ms: number;
}

export interface ChildEvents {
  exit(code: number | null, signal: string | null): void;
  error(err: Error): void;
  stderr(chunk: Buffer): void;
}

export interface ChildHandle {
  kill(signal: 'SIGTERM' | 'SIGKILL'): void;
}

/** Starts a process: the real one spawns, the tests' one records. */
export type Spawner = (spec: RunSpec, on: ChildEvents) => ChildHandle;

/** The real spawner: no shell, stdin the event, stdout ignored, its own process group. */
export const spawnProcess: Spawner = (spec, on) => {
  const child = spawn(spec.argv[0]!, spec.argv.slice(1), { env: spec.env, cwd: os.homedir(), stdio: ['pipe', 'ignore', 'pipe'], detached: true });
  child.on('error', (err) => on.error(err));
  child.on('exit', (code, signal) => on.exit(code, signal));
  child.stderr?.on('data', (b: Buffer) => on.stderr(b));
  // a command that does not read its stdin closes it: not a failure of its own
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(spec.stdin);
  return {
    kill(signal) {
      try {
        // the group: what it started goes too
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        child.kill(signal);
      }
    },
  };
};

/** The last non-empty line of what a process wrote to stderr, shown safely, at most 300 characters. */
export function lastLine(tail: Buffer): string {
  const lines = tail.toString('utf8').split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l !== '');
  return visible(lines.at(-1) ?? '').slice(0, 300);
}

/** What a failed outcome was, for the log and doctor. */
export function describeOutcome(o: RunOutcome, timeoutMs: number): string {
  const why = o.error ? `could not start: ${o.error}` : o.timedOut ? `timed out after ${timeoutMs / 1000} s (killed with ${o.signal ?? 'SIGTERM'})` : o.signal ? `ended by ${o.signal}` : `exit status ${o.code}`;
  return o.stderrLine ? `${why}: ${o.stderrLine}` : why;
}

interface Job<T> {
  spec: RunSpec;
  tag: T;
}

export class RunPool<T> {
  private readonly waiting: Job<T>[] = [];
  private active = 0;
  private readonly children = new Set<ChildHandle>();

  constructor(
    private readonly deps: {
      spawn: Spawner;
      clock: Clock;
      done: (tag: T, outcome: RunOutcome) => void;
      dropped: (tag: T) => void;
      max?: number;
      queueMax?: number;
      killAfterMs?: number;
    },
  ) {}

  get running(): number {
    return this.active;
  }
  get queued(): number {
    return this.waiting.length;
  }

  /** The supervisor stops: nothing more starts, what runs is ended (it would outlive its timeout). */
  stop(): void {
    this.waiting.length = 0;
    for (const c of this.children) c.kill('SIGTERM');
  }

  /** Runs it now or later; false when the queue is full and it was dropped. */
  submit(spec: RunSpec, tag: T): boolean {
    if (this.active < (this.deps.max ?? RUN_MAX)) {
      this.start({ spec, tag });
      return true;
    }
    if (this.waiting.length >= (this.deps.queueMax ?? QUEUE_MAX)) {
      this.deps.dropped(tag);
      return false;
    }
    this.waiting.push({ spec, tag });
    return true;
  }

  private start(job: Job<T>): void {
    this.active++;
    const clock = this.deps.clock;
    const started = clock.now();
    let tail = Buffer.alloc(0);
    let timedOut = false;
    let settled = false;
    let term: Timer | null = null;
    let kill: Timer | null = null;
    let signalSent: string | null = null;
    const finish = (code: number | null, signal: string | null, error: string | null): void => {
      if (settled) return;
      settled = true;
      term?.cancel();
      kill?.cancel();
      this.children.delete(child);
      this.active--;
      const outcome: RunOutcome = { ok: error === null && !timedOut && code === 0, code, signal: signal ?? signalSent, timedOut, error, stderrLine: lastLine(tail), ms: clock.now() - started };
      try {
        this.deps.done(job.tag, outcome);
      } finally {
        const next = this.waiting.shift();
        if (next) this.start(next);
      }
    };
    let child: ChildHandle = { kill: () => undefined };
    try {
      child = this.deps.spawn(job.spec, {
        exit: (code, signal) => finish(code, signal, null),
        error: (err) => finish(null, null, (err as NodeJS.ErrnoException).code ?? err.message),
        stderr: (chunk) => {
          tail = Buffer.concat([tail, chunk]);
          if (tail.length > STDERR_TAIL) tail = tail.subarray(tail.length - STDERR_TAIL);
        },
      });
    } catch (err) {
      finish(null, null, (err as Error).message);
      return;
    }
    if (settled) return;
    this.children.add(child);
    term = clock.after(job.spec.timeoutMs, () => {
      timedOut = true;
      signalSent = 'SIGTERM';
      child.kill('SIGTERM');
      kill = clock.after(this.deps.killAfterMs ?? KILL_AFTER_MS, () => {
        signalSent = 'SIGKILL';
        child.kill('SIGKILL');
      });
    });
  }
}
