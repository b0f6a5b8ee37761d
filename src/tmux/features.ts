// What differs between the tmux versions nerdr supports (3.2a to 3.7), in one place: the
// supervisor adapts to it, and `nerdr doctor` says what is degraded on the tmux it found.

import { parseVersion } from './server.js';

export interface TmuxFeatures {
  /** As tmux prints it (`3.2a`, `tmux 3.7c`). */
  text: string;
  /**
   * Before 3.3 a control client without a size counts as 80x24 when tmux sizes windows, so
   * nerdr's client would shrink every agent window it watches; it is flagged ignore-size and
   * given _nerdr's size instead.
   */
  controlClientSized: boolean;
  /**
   * 3.3 added allow-passthrough (off by default); 3.2 passes every DCS passthrough through, so
   * OSC 9/777 notifications need nothing there.
   */
  passthroughOption: boolean;
  /** From 3.4 capture-pane keeps a tab as a tab; before, it prints the spaces it moved over. */
  captureKeepsTabs: boolean;
  /**
   * A pane whose program exits before tmux has read its last output loses that output (tmux
   * GitHub issue 4807; 3.7 checks for unread bytes first, but on Linux a pty's last write can
   * still be on its way through the kernel then: CI saw 3.7c lose it once, 1 window in 12, on a
   * loaded machine), and before 3.3 a pane kept on exit (remain-on-exit) that dies while a
   * control client is still owed its output crashes the whole server (issue 2828). nerdr's
   * windows run their program under an exit guard on every version (docs/tmux.md).
   */
  exitGuard: boolean;
  /** 3.3 added the client-focus-in hook (nerdr inside herdr switches on it). */
  clientFocusHook: boolean;
}

function atLeast(v: [number, number, string], major: number, minor: number): boolean {
  return v[0] > major || (v[0] === major && v[1] >= minor);
}

export function tmuxFeatures(text: string): TmuxFeatures {
  const v = parseVersion(text) ?? [3, 2, ''];
  return {
    text,
    controlClientSized: !atLeast(v, 3, 3),
    passthroughOption: atLeast(v, 3, 3),
    captureKeepsTabs: atLeast(v, 3, 4),
    exitGuard: true,
    clientFocusHook: atLeast(v, 3, 3),
  };
}

/** What a user of this tmux gets less of, with what to do about it; empty when nothing. */
export function degradedOn(f: TmuxFeatures): string[] {
  const notes: string[] = [];
  if (f.controlClientSized) {
    notes.push(
      "tmux before 3.3 sizes windows by control clients too: nerdr's client asks to be ignored (ignore-size), so an agent window no one shows runs at 160x48 until a client shows it",
    );
  }
  return notes;
}
