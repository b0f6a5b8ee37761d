// Keeps nerdr's prefixes in the user's status formats while a supervisor runs. A config reload
// (`tmux source-file ~/.tmux.conf`) sets the formats to what the file says, without the prefixes;
// a format subscription tells the supervisor, which puts each prefix back once, around the user's
// new value (kept as the saved one). Never against the user: not after `nerdr tmux uninstall`,
// and not against something that keeps taking a prefix out (at most REPAIRS a minute per option).

import { existsSync } from 'node:fs';
import { lightsOffFile } from '../paths.js';
import { STATUS_OPTIONS, installLight, optionValue, readsMarker, type RunArgv, type StatusOption } from '../tmux/status.js';
import type { Clock, Timer } from './clock.js';
import type { Logger } from './log.js';

/** The subscription's name on the control channel. */
export const STATUS_SUBSCRIPTION = 'nerdr-s';

/**
 * Per decorated option, whether it names the marker itself and how long it is: a change of
 * either is worth a look (tmux checks subscriptions once a second and reports only changes).
 * Not the values themselves: a line break in one would break the notification's line.
 */
export function statusSubscriptionFormat(): string {
  return STATUS_OPTIONS.map(({ option, marker }) => `#{m:*${marker}*,#{${option}}}.#{n:${option}}`).join('|');
}


/** How many times a minute one option is put back; past that, it is left off while it keeps being taken out. */
export const REPAIRS = 3;
export const REPAIR_WINDOW_MS = 60_000;

interface Budget {
  repairs: number[];
  /** When a prefix was last left off for being taken out too often; null while repairs are allowed. */
  heldAt: number | null;
}

export interface StatusKeeperDeps {
  run: RunArgv;
  clock: Clock;
  log: Logger;
  /** False once the user has run `nerdr tmux uninstall` (by default: its file is there), asked before every repair. */
  wanted?: () => boolean;
  /**
   * The window the subscription is made on (`@3`: `_nerdr`'s own), not the client's session,
   * which tmux 3.2a and 3.3a may read after it is gone (src/supervisor/pane-watch.ts).
   */
  anchor: () => string;
}

export class StatusKeeper {
  private readonly budgets = new Map<StatusOption, Budget>();
  private timer: Timer | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  /** Repairs made, for tests. */
  repaired = 0;

  private readonly wanted: () => boolean;

  constructor(private readonly deps: StatusKeeperDeps) {
    this.wanted = deps.wanted ?? (() => !existsSync(lightsOffFile()));
  }

  /**
   * Asks tmux for the subscription, anew: tmux reports a value only when it differs from the last
   * one it sent, and it samples once a second, so after a repair, a reload within that second
   * would bring back the value sent before the repair, and go unreported.
   */
  async subscribe(): Promise<void> {
    await this.deps.run(['refresh-client', '-B', `${STATUS_SUBSCRIPTION}:${this.deps.anchor()}:${statusSubscriptionFormat()}`]);
  }

  /** The subscription's value changed: look at the options soon (once for a burst of changes). */
  changed(): void {
    if (this.timer) return;
    this.timer = this.deps.clock.after(50, () => {
      this.timer = null;
      void this.check();
    });
  }

  /** Resolves when the look in progress (and one asked for meanwhile) is over. */
  async check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.checkOnce().catch((err: Error) => this.deps.log('warn', `status formats: ${err.message}`));
      } while (this.again);
    })();
    await this.running;
    this.running = null;
  }

  dispose(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  private async checkOnce(): Promise<void> {
    const before = this.repaired;
    await this.repair();
    if (this.repaired > before) await this.subscribe();
  }

  private async repair(): Promise<void> {
    for (const spec of STATUS_OPTIONS) {
      const current = await optionValue(this.deps.run, spec.option);
      if (await readsMarker(this.deps.run, current, spec.marker)) continue;
      // asked at each lost prefix: `nerdr tmux uninstall` writes its file before it takes them out
      if (!this.wanted()) {
        this.deps.log('info', `${spec.option} has no nerdr prefix; left so: nerdr tmux uninstall was run`);
        return;
      }
      if (!this.allow(spec.option)) continue;
      if (await installLight(this.deps.run, spec)) {
        this.repaired++;
        this.deps.log('info', `${spec.option} lost nerdr's prefix (a config reload?); put back in front of its new value`);
      }
    }
  }

  /** Whether a lost prefix may be put back now; a refusal starts (or prolongs) a hold, logged once. */
  private allow(option: StatusOption): boolean {
    const now = this.deps.clock.now();
    let b = this.budgets.get(option);
    if (!b) this.budgets.set(option, (b = { repairs: [], heldAt: null }));
    b.repairs = b.repairs.filter((t) => now - t < REPAIR_WINDOW_MS);
    if (b.heldAt !== null && now - b.heldAt < REPAIR_WINDOW_MS) {
      b.heldAt = now;
      return false;
    }
    if (b.repairs.length >= REPAIRS) {
      b.heldAt = now;
      this.deps.log(
        'warn',
        `${option} lost nerdr's prefix ${REPAIRS + 1} times within a minute: something takes it out on purpose, so nerdr leaves it out ` +
          'until nothing has taken it out for a minute (`nerdr tmux install` puts it back now; `nerdr tmux uninstall` keeps it out for good)',
      );
      return false;
    }
    if (b.heldAt !== null) this.deps.log('info', `${option}: putting nerdr's prefix back again (nothing took it out for a minute)`);
    b.heldAt = null;
    b.repairs.push(now);
    return true;
  }
}
