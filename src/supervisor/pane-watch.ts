// What tmux tells nerdr about every pane without being asked: a format subscription, `nerdr-p`,
// whose value changes when a pane dies (with its exit status), enters or leaves a mode, or runs
// another foreground command. discover.ts lists the panes; this follows them between scans.

import { EXIT_STATUS_OPTION, paneExitStatus } from './discover.js';

export const PANE_SUBSCRIPTION = 'nerdr-p';

/** `refresh-client -B` argument: every pane (`%*`), dead|status|in_mode|guard's status|command. */
export const PANE_SUBSCRIPTION_SPEC = `${PANE_SUBSCRIPTION}:%*:#{pane_dead}|#{pane_dead_status}|#{pane_in_mode}|#{${EXIT_STATUS_OPTION}}|#{pane_current_command}`;

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

/** Parses `%subscription-changed` args: `NAME $S @W idx %P : value` (for a pane subscription). */
export function parseSubscriptionChange(args: string): SubscriptionChange {
  const sep = args.indexOf(' : ');
  if (sep < 0) return null;
  const head = args.slice(0, sep).split(' ');
  const value = args.slice(sep + 3);
  if (head[0] !== PANE_SUBSCRIPTION) return head[0] ? { kind: 'other', name: head[0], value } : null;
  // the command is last: it may hold a |
  const [dead, status = '', inMode, guardStatus = '', ...command] = value.split('|');
  return {
    kind: 'pane',
    change: { pane: head[4] ?? '', dead: dead === '1', status: paneExitStatus(dead === '1', status, guardStatus), inMode: inMode === '1', command: command.join('|') },
  };
}
