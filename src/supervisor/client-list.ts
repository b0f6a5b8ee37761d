// The clients a notification must not disturb: `list-clients` rows as src/supervisor/notify.ts
// reads them (whether a client shows the window, its pane's tty, whether it passes OSC through).

import type { ClientView } from './notify.js';

export const CLIENT_VIEWS_FORMAT = '#{client_control_mode}\t#{window_id}\t#{pane_tty}\t#{allow-passthrough}';

/** Parses `list-clients -F CLIENT_VIEWS_FORMAT`; `passthroughKnown`: whether this tmux has allow-passthrough. */
export function parseClientViews(lines: readonly string[], passthroughKnown: boolean): ClientView[] {
  return lines
    .map((l) => l.split('\t'))
    .map(([control, win = '', paneTty = '', pass = '']) => ({
      control: control === '1',
      windowId: win,
      paneTty,
      // tmux 3.3 prints the flag as 1, later versions as on/all
      passthrough: passthroughKnown ? pass === 'on' || pass === 'all' || pass === '1' : true,
    }));
}
