// Which window each user session shows: what `nerdr review` follows. Refreshed on the
// notifications that can change it (%session-window-changed, a session or window appearing,
// going or being renamed), and only while someone follows: no follower, no tmux command.

import { randomBytes } from 'node:crypto';
import { command } from '../tmux/quote.js';
import { HIDDEN_SESSION } from './discover.js';
import { Rerun } from './rerun.js';

export interface ActiveWindow {
  /** The session's id ($3) and name. */
  session: string;
  sessionName: string;
  /** The window the session shows now (@7), its name, and its active pane with that pane's folder. */
  window: string;
  windowName: string;
  pane: string;
  paneCwd: string;
  /** The window's worktree, branch and base (window options set by `nerdr new --worktree`), or null. */
  worktree: string | null;
  branch: string | null;
  base: string | null;
}

const FIELDS = [
  'session_id',
  'session_name',
  'window_id',
  'window_name',
  'pane_id',
  'pane_current_path',
  '@nerdr_worktree',
  '@nerdr_branch',
  '@nerdr_base',
] as const;

// a folder or an option may hold tabs and line breaks: rows and fields are split on a token
// drawn per process, as discover.ts does
const MARK = `~nerdr-a${randomBytes(8).toString('hex')}`;
const ROW = `${MARK}R`;
const FIELD = `${MARK}F`;

/** The `list-sessions -F` format: a session's fields are those of its current window and pane. */
export const ACTIVE_FORMAT = ROW + FIELDS.map((f) => `#{${f}}`).join(FIELD);

/** One row as tmux prints it for ACTIVE_FORMAT (for tests). */
export function activeRow(values: readonly string[]): string {
  return ROW + values.join(FIELD) + '\n';
}

/** Parses `list-sessions -F ACTIVE_FORMAT`; nerdr's hidden session is left out. */
export function parseActive(text: string): ActiveWindow[] {
  const out: ActiveWindow[] = [];
  for (const row of text.split(ROW).slice(1)) {
    const v = row.replace(/\n$/, '').split(FIELD);
    if (v.length !== FIELDS.length) continue;
    const [session, sessionName, window, windowName, pane, paneCwd, worktree, branch, base] = v as string[];
    if (sessionName === HIDDEN_SESSION || !window) continue;
    out.push({
      session: session!,
      sessionName: sessionName!,
      window: window!,
      windowName: windowName!,
      pane: pane!,
      paneCwd: paneCwd!,
      worktree: worktree || null,
      branch: branch || null,
      base: base || null,
    });
  }
  return out;
}

export const LIST_ACTIVE = command('list-sessions', '-F', ACTIVE_FORMAT);

export interface ActiveDeps {
  run(cmd: string): Promise<string>;
  /** The list changed (not called for a refresh that found the same). */
  changed(list: ActiveWindow[]): void;
  log(message: string): void;
}

export class ActiveWindows {
  private list: ActiveWindow[] = [];
  private key = '';
  private followers = 0;
  private readonly asks = new Rerun(() => this.ask());

  constructor(private readonly deps: ActiveDeps) {}

  current(): ActiveWindow[] {
    return this.list;
  }

  /** A follower starts; returns the list as tmux has it now. `release` when it goes. */
  async follow(): Promise<ActiveWindow[]> {
    this.followers++;
    return this.refresh();
  }

  release(): void {
    this.followers = Math.max(0, this.followers - 1);
  }

  /** A notification that may have changed a session's window: looked at only while followed. */
  notify(): void {
    if (this.followers > 0) void this.refresh().catch((err: Error) => this.deps.log(`active windows: ${err.message}`));
  }

  /** Asks tmux once; a call while one is under way asks again after it (the latest state wins). */
  refresh(): Promise<ActiveWindow[]> {
    return this.asks.run();
  }

  private async ask(): Promise<ActiveWindow[]> {
    const list = parseActive(await this.deps.run(LIST_ACTIVE));
    const key = JSON.stringify(list);
    if (key !== this.key) {
      this.key = key;
      this.list = list;
      this.deps.changed(list);
    }
    return this.list;
  }
}
