// What tmux tells nerdr about each watched pane without being asked: a format subscription per
// window that holds one, `nerdr-p@<id>`, whose value lists the window's panes and changes when one
// dies (with its exit status), enters or leaves a mode, or runs another foreground command.
// discover.ts lists the panes; this follows them between scans.
//
// Per window, not one for every pane (`%*`): tmux 3.2a and 3.3a check a control client's
// subscriptions once a second also while the client has no session (its session was destroyed
// under it, or it is on its way out after a detach), and an every-pane or every-window
// subscription walks that missing session's windows: a segfault that takes the server and every
// agent with it. A window's own subscription looks its window up by id and finds no link to a
// missing session. Not per pane either: tmux 3.3 and later never report a dead pane's own
// subscription (its check skips a pane whose program is gone). The session's (nerdr-s, nerdr-f)
// are made on `_nerdr`'s own window for the same reason. docs/tmux.md.

import { EXIT_STATUS_OPTION, paneExitStatus } from './discover.js';

export const PANE_SUBSCRIPTION = 'nerdr-p';

/**
 * One pane of the window: id|dead|status|in_mode|guard's status|command, and a space after it.
 * The command is quoted as for a shell (`q:`, a backslash before `|`, space and the like), so the
 * separators left bare are only these.
 */
const PANE_ENTRY = `#{pane_id}|#{pane_dead}|#{pane_dead_status}|#{pane_in_mode}|#{${EXIT_STATUS_OPTION}}|#{q:pane_current_command} `;

/** The name of a window's subscription: `nerdr-p@5`. */
export function windowSubscriptionName(window: string): string {
  return PANE_SUBSCRIPTION + window;
}

/** `refresh-client -B` argument that subscribes to a window (`@5`): each of its panes. */
export function windowSubscriptionSpec(window: string): string {
  return `${windowSubscriptionName(window)}:${window}:#{P:${PANE_ENTRY}}`;
}

export interface PaneChange {
  pane: string;
  dead: boolean;
  /** tmux's exit status, else the exit guard's; '' while the program runs. */
  status: string;
  inMode: boolean;
  command: string;
}

/** One pane as its window's subscription says it: `raw` is its entry, to tell whether it changed. */
export interface PaneEntry {
  raw: string;
  change: PaneChange;
}

/** A `%subscription-changed` line: a window's panes, another subscription's value, or nothing usable. */
export type SubscriptionChange = { kind: 'panes'; panes: PaneEntry[] } | { kind: 'other'; name: string; value: string } | null;

/** Parses `%subscription-changed` args: `NAME $S @W idx - : value` (for a window's subscription). */
export function parseSubscriptionChange(args: string): SubscriptionChange {
  const sep = args.indexOf(' : ');
  if (sep < 0) return null;
  const name = args.slice(0, sep).split(' ')[0] ?? '';
  const value = args.slice(sep + 3);
  if (!name.startsWith(PANE_SUBSCRIPTION + '@')) return name ? { kind: 'other', name, value } : null;
  const panes: PaneEntry[] = [];
  for (const raw of splitBare(value, ' ')) {
    const f = splitBare(raw, '|', true);
    if (f.length !== 6 || !f[0]!.startsWith('%')) continue;
    const [pane, dead, status, inMode, guardStatus, command] = f as [string, string, string, string, string, string];
    panes.push({ raw, change: { pane, dead: dead === '1', status: paneExitStatus(dead === '1', status, guardStatus), inMode: inMode === '1', command: command.replace(/\\(.)/gs, '$1') } });
  }
  return { kind: 'panes', panes };
}

/** `text` split at each `sep` that no backslash escapes (the escapes kept); empty parts dropped unless `keepEmpty`. */
function splitBare(text: string, sep: string, keepEmpty = false): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && i + 1 < text.length) {
      cur += ch + text[i + 1]!;
      i++;
    } else if (ch === sep) {
      if (cur || keepEmpty) parts.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  if (cur || keepEmpty) parts.push(cur);
  return parts;
}
