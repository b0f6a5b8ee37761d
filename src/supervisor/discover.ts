// Finding nerdr's windows in tmux: every pane tagged @nerdr_pane, one row per session link.

import { randomBytes } from 'node:crypto';
import { HIBERNATED_OPTION } from './hibernate.js';

export const HIDDEN_SESSION = '_nerdr';

/**
 * The pane option where the exit guard (create.ts) keeps the program's exit status, set before
 * the pane dies: tmux 3.3 can list a pane dead before it has reaped its process, and sometimes
 * never gets its status (docs/tmux.md); the guard always has it.
 */
export const EXIT_STATUS_OPTION = '@nerdr_exit_status';

/**
 * Set to 1 on a pane whose exit guard (create.ts) gave up waiting for the supervisor after
 * EXIT_GUARD_WAIT_S: output written just before the program's exit may not have reached the
 * mirror. Unset when the supervisor released the pane.
 */
export const EXIT_UNCONFIRMED_OPTION = '@nerdr_exit_unconfirmed';

/** A pane's exit status: tmux's own, else the exit guard's; none while it runs. */
export function paneExitStatus(dead: boolean, tmuxStatus: string, guardStatus: string): string {
  return tmuxStatus || (dead ? guardStatus : '');
}

/** A `--cmd` window's quiet rule wait in ms (`nerdr new --idle-after`, else config.toml's), '0' = off. */
export const IDLE_AFTER_OPTION = '@nerdr_idle_after';
/**
 * The id of the last queued message whose paste tmux ran in this pane: set on the paste's own
 * command line, before the paste, so tmux ran both or neither (src/supervisor/messages.ts). A
 * pane option: two agent panes joined into one window keep one each.
 */
export const TYPED_OPTION = '@nerdr_typed';

/** The wait kept on a window: whole milliseconds; null when unset or unreadable (the default applies). */
export function parseIdleAfter(text: string | undefined): number | null {
  return text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : null;
}

const FIELDS = [
  'pane_id',
  'window_id',
  'session_name',
  '@nerdr_pane',
  'pane_dead',
  'pane_dead_status',
  'pane_width',
  'pane_height',
  '@nerdr_agent',
  '@nerdr_secret_hash',
  '@nerdr_cwd',
  '@nerdr_argv',
  'window_index',
  'session_id',
  'pane_pid',
  '@nerdr_facts',
  '@nerdr_args',
  '@nerdr_note',
  '@nerdr_worktree',
  '@nerdr_branch',
  '@nerdr_base',
  '@nerdr_lineage',
  IDLE_AFTER_OPTION,
  'window_name',
  HIBERNATED_OPTION,
  TYPED_OPTION,
  EXIT_STATUS_OPTION,
] as const;

/**
 * tmux prints option values as they are: a folder (@nerdr_cwd) or a note may hold tabs and line
 * breaks, so neither can separate fields or rows. Rows and fields are marked with a token drawn
 * once per process, which no value holds by chance (session and window names cannot hold either:
 * tmux escapes control characters in them).
 */
const MARK = `~nerdr-${randomBytes(8).toString('hex')}`;
const ROW = `${MARK}R`;
const FIELD = `${MARK}F`;

export const LIST_PANES_FORMAT = ROW + FIELDS.map((f) => `#{${f}}`).join(FIELD);

/** One row as tmux prints it for LIST_PANES_FORMAT (for tests). */
export function paneListRow(values: readonly string[]): string {
  return ROW + values.join(FIELD) + '\n';
}

export interface FoundPane {
  paneId: string;
  windowId: string;
  id: string;
  agent: string;
  dead: boolean;
  deadStatus: string;
  width: number;
  height: number;
  secretHash: string;
  cwd: string;
  argv: string[];
  name: string;
  /** The user's sessions showing this window, with the window's index there. */
  links: { session: string; sessionId: string; index: number }[];
  inHidden: boolean;
  panePid: number;
  /** The arbiter facts a previous supervisor kept on the window (JSON), or ''. */
  facts: string;
  /** The user's own launch arguments. */
  args: string[];
  note: string;
  /** The window's worktree, its branch and base (`nerdr new --worktree`), or ''. */
  worktree: string;
  branch: string;
  base: string;
  /** The agent windows that started this one (ids, nearest first; `nerdr new` from inside one). */
  lineage: string[];
  /** The quiet rule's wait for this window (ms, 0 = off), or null for the default. */
  idleAfterMs: number | null;
  /** The window's hibernation record (@nerdr_hibernated, JSON), or '' (src/supervisor/hibernate.ts). */
  hibernated: string;
  /** The id of the last queued message whose paste line tmux ran here (TYPED_OPTION), or ''. */
  typed: string;
}

/** Parses `list-panes -a -F LIST_PANES_FORMAT` output; rows without @nerdr_pane are skipped. */
export function parsePaneList(text: string): FoundPane[] {
  const byPane = new Map<string, FoundPane>();
  for (const raw of text.split(ROW).slice(1)) {
    // a row of its own: a field sliced from the whole reply (V8 keeps substrings as slices of
    // it) kept every pane's row alive for as long as the window lived, one reply per window made
    // (9 MB of a supervisor's 48 with 101 windows, a heap snapshot showed)
    const row = Buffer.from(raw, 'utf8').toString('utf8');
    // each row ends with tmux's line break; the last field (the guard's exit status) holds none
    const v = row.replace(/\n$/, '').split(FIELD);
    if (v.length !== FIELDS.length) continue;
    const [paneId, windowId, session, id, dead, deadStatus, w, h, agent, secret, cwd, argv, index, sessionId, panePid, facts, args, note, worktree, branch, base, lineage, idleAfter, name, hibernated, typed, guardStatus] = v as string[];
    if (!id) continue;
    let p = byPane.get(paneId!);
    if (!p) {
      const parsedArgv = jsonStrings(argv);
      p = {
        paneId: paneId!,
        windowId: windowId!,
        id: id!,
        agent: agent || 'unknown',
        dead: dead === '1',
        deadStatus: paneExitStatus(dead === '1', deadStatus ?? '', guardStatus ?? ''),
        width: Number(w) || 80,
        height: Number(h) || 24,
        secretHash: secret ?? '',
        cwd: cwd ?? '',
        argv: parsedArgv,
        name: name!,
        links: [],
        inHidden: false,
        panePid: Number(panePid) || 0,
        facts: facts ?? '',
        args: jsonStrings(args),
        note: note ?? '',
        worktree: worktree ?? '',
        branch: branch ?? '',
        base: base ?? '',
        lineage: (lineage ?? '').split(' ').filter(Boolean),
        idleAfterMs: parseIdleAfter(idleAfter),
        hibernated: hibernated ?? '',
        typed: typed ?? '',
      };
      byPane.set(paneId!, p);
    }
    if (session === HIDDEN_SESSION) p.inHidden = true;
    else p.links.push({ session: session!, sessionId: sessionId!, index: Number(index) });
  }
  return [...byPane.values()];
}

function jsonStrings(text: string | undefined): string[] {
  try {
    const a: unknown = JSON.parse(text || '[]');
    return Array.isArray(a) ? a.map(String) : [];
  } catch {
    return [];
  }
}

/** Pane sizes from a %layout-change layout string: `csum,WxH,x,y,ID` or nested {…}/[…]. */
export function parseLayoutSizes(layout: string): Map<string, { cols: number; rows: number }> {
  const out = new Map<string, { cols: number; rows: number }>();
  const re = /(\d+)x(\d+),\d+,\d+,(\d+)/g;
  for (let m = re.exec(layout); m; m = re.exec(layout)) {
    out.set(`%${m[3]}`, { cols: Number(m[1]), rows: Number(m[2]) });
  }
  return out;
}
