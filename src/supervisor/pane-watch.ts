// What tmux tells nerdr about each watched pane without being asked: a format subscription per
// pane, `nerdr-p%<id>`, whose value changes when the pane dies (with its exit status), enters or
// leaves a mode, or runs another foreground command. discover.ts lists the panes; this follows
// them between scans.
//
// One subscription per pane, not one for every pane (`%*`): tmux 3.2a and 3.3a check a control
// client's subscriptions once a second also while the client has no session (its session was
// destroyed under it, or it is on its way out after a detach), and an every-pane or every-window
// subscription walks that missing session's windows: a segfault that takes the server and every
// agent with it. A pane's own subscription looks its pane up by id and finds no link to a
// missing session; the session subscriptions (nerdr-s, nerdr-f) read global options, which do
// not change with the session. docs/tmux.md.

import { EXIT_STATUS_OPTION, paneExitStatus } from './discover.js';

export const PANE_SUBSCRIPTION = 'nerdr-p';

const PANE_FORMAT = `#{pane_dead}|#{pane_dead_status}|#{pane_in_mode}|#{${EXIT_STATUS_OPTION}}|#{pane_current_command}`;

/** The name of a pane's subscription: `nerdr-p%5`. */
export function paneSubscriptionName(pane: string): string {
  return PANE_SUBSCRIPTION + pane;
}

/** `refresh-client -B` argument that subscribes to a pane (`%5`): dead|status|in_mode|guard's status|command. */
export function paneSubscriptionSpec(pane: string): string {
  return `${paneSubscriptionName(pane)}:${pane}:${PANE_FORMAT}`;
}

export interface PaneChange {
  pane: string;
  dead: boolean;
  /** tmux's exit status, else the exit guard's; '' while the program runs. */
  status: string;
  inMode: boolean;
  command: string;
}

/** A `%subscription-changed` line: a pane's change, another subscription's value, or nothing usable. */
export type SubscriptionChange = { kind: 'pane'; change: PaneChange } | { kind: 'other'; name: string; value: string } | null;

/** Parses `%subscription-changed` args: `NAME $S @W idx %P : value` (for a pane's subscription). */
export function parseSubscriptionChange(args: string): SubscriptionChange {
  const sep = args.indexOf(' : ');
  if (sep < 0) return null;
  const head = args.slice(0, sep).split(' ');
  const value = args.slice(sep + 3);
  const name = head[0] ?? '';
  if (!name.startsWith(PANE_SUBSCRIPTION + '%')) return name ? { kind: 'other', name, value } : null;
  // the command is last: it may hold a |
  const [dead, status = '', inMode, guardStatus = '', ...command] = value.split('|');
  return {
    kind: 'pane',
    change: { pane: head[4] ?? '', dead: dead === '1', status: paneExitStatus(dead === '1', status, guardStatus), inMode: inMode === '1', command: command.join('|') },
  };
}
