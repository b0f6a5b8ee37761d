// `nerdr inbox snooze ID 15m`: a row left out of the inbox until a time. Kept in a small file
// of the private state folder, so a supervisor that restarts keeps them; ids whose time has
// passed are dropped when the file is next written.

import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../store/atomic.js';

/** Longest snooze: a week. */
export const MAX_SNOOZE_MS = 7 * 24 * 3600_000;
/** Most snoozed rows kept (the oldest go first). */
const MAX_KEPT = 1000;

export class Snoozes {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly file: string | null,
    private readonly now: () => number,
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    if (!file) return;
    try {
      const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      if (raw && typeof raw === 'object') {
        for (const [id, t] of Object.entries(raw)) if (typeof t === 'number' && t > now()) this.until.set(id, t);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') warn(`the snoozed inbox rows could not be read (${(err as Error).message}); none is snoozed`);
    }
  }

  has(id: string): boolean {
    const t = this.until.get(id);
    return t !== undefined && t > this.now();
  }

  /** Snoozes `id` for `forMs`; 0 wakes it. Returns the time it shows again. */
  set(id: string, forMs: number): number {
    const now = this.now();
    for (const [k, t] of this.until) if (t <= now) this.until.delete(k);
    const at = now + Math.min(forMs, MAX_SNOOZE_MS);
    if (forMs <= 0) this.until.delete(id);
    else this.until.set(id, at);
    while (this.until.size > MAX_KEPT) this.until.delete(this.until.keys().next().value!);
    if (this.file) {
      try {
        writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(this.until)));
      } catch (err) {
        this.warn(`the snoozed inbox rows could not be saved (${(err as Error).message}); kept until the supervisor stops`);
      }
    }
    return forMs <= 0 ? now : at;
  }

  /** The next time a snoozed row shows again, or null. */
  next(): number | null {
    const now = this.now();
    let min: number | null = null;
    for (const t of this.until.values()) if (t > now && (min === null || t < min)) min = t;
    return min;
  }
}
