// What `[[on]]` keeps on disk, per tmux server, in the private state folder: the last event fired
// per window and track (so that a restarted supervisor does not run a command again for a state
// entry it already ran one for) and the last failures (which `nerdr doctor` shows).
// docs/on-events.md.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../store/atomic.js';

/** Windows remembered; the oldest fired is forgotten first. */
export const FIRED_MAX = 256;
/** Failures kept for doctor. */
export const FAILURES_MAX = 20;

export function onFiles(stateDir: string, serverKey: string): { fired: string; failures: string } {
  return { fired: path.join(stateDir, `on-${serverKey}.fired.json`), failures: path.join(stateDir, `on-${serverKey}.failures.json`) };
}

/** One state entry that ran its commands: `track` is `<agent id>:state` or `<agent id>:stalled`. */
export interface FiredEntry {
  track: string;
  /** The state entered (`blocked`, …, `stalled`) and when. */
  state: string;
  since: number;
  /** window|state|since: the event's identity. */
  key: string;
  /** When it fired (ms since the epoch). */
  at: number;
}

export interface OnFailure {
  at: number;
  /** blocked, done, … */
  event: string;
  window: string;
  name: string;
  /** The command, as written in config.toml. */
  run: string[];
  /** What went wrong, for people: `exit status 7: curl: (7) Failed to connect`, `timed out after 10 s`. */
  why: string;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

/** The fired entries, read once and written on every fire (a few a minute at most). */
export class FiredStore {
  private readonly entries = new Map<string, FiredEntry>();

  constructor(
    private readonly file: string,
    private readonly log: (message: string) => void = () => undefined,
  ) {
    const raw = readJson(file);
    if (!Array.isArray(raw)) return;
    for (const e of raw as Partial<FiredEntry>[]) {
      if (typeof e?.track === 'string' && typeof e.state === 'string' && typeof e.since === 'number' && typeof e.key === 'string' && typeof e.at === 'number') {
        this.entries.set(e.track, e as FiredEntry);
      }
    }
  }

  get(track: string): FiredEntry | undefined {
    return this.entries.get(track);
  }

  put(e: FiredEntry): void {
    this.entries.delete(e.track);
    this.entries.set(e.track, e);
    while (this.entries.size > FIRED_MAX) this.entries.delete(this.entries.keys().next().value!);
    this.save();
  }

  /** The window is gone: its entries need not be kept. */
  forget(id: string): void {
    let changed = false;
    for (const t of [`${id}:state`, `${id}:stalled`]) changed = this.entries.delete(t) || changed;
    if (changed) this.save();
  }

  private save(): void {
    try {
      writeFileAtomic(this.file, JSON.stringify([...this.entries.values()]));
    } catch (err) {
      // the event still runs; a restart may then run it a second time
      this.log(`cannot write ${this.file}: ${(err as Error).message}`);
    }
  }
}

export function readFailures(file: string): OnFailure[] {
  const raw = readJson(file);
  return Array.isArray(raw) ? (raw as OnFailure[]).filter((f) => typeof f?.at === 'number' && typeof f.why === 'string' && Array.isArray(f.run)) : [];
}

export function recordFailure(file: string, f: OnFailure, log: (message: string) => void = () => undefined): void {
  const all = [...readFailures(file), f].slice(-FAILURES_MAX);
  try {
    writeFileAtomic(file, JSON.stringify(all));
  } catch (err) {
    log(`cannot write ${file}: ${(err as Error).message}`);
  }
}
