// Notifications when an agent becomes blocked or done while no client looks at its window:
// the window bell (so monitor-bell and bell styles work), OSC 9 / OSC 777 through tmux
// passthrough to the clients' terminals, and notify-send where it exists. One per transition.
//
// A BEL written to a pane's tty is read back by tmux as that pane's output, so the window gets
// its bell flag without the agent seeing anything. The OSC sequences are wrapped for
// passthrough and written to the tty of the pane each client shows: tmux hands them to the
// client's terminal (when allow-passthrough is on) and draws nothing.

import { spawn } from 'node:child_process';
import { openSync, writeSync, closeSync, constants } from 'node:fs';
import { onPath } from '../integrations/plan.js';

export interface NotifyChannels {
  bell: boolean;
  osc: boolean;
  desktop: boolean;
}

export interface ClientView {
  control: boolean;
  windowId: string;
  paneTty: string;
  passthrough: boolean;
}

export interface Notification {
  windowId: string;
  paneTty: string;
  title: string;
  body: string;
}

/** The OSC 9 and OSC 777 notifications, each wrapped in tmux's passthrough DCS. */
export function passthroughOsc(title: string, body: string): string {
  const clean = (s: string) => s.replace(/[\x00-\x1f\x7f;]/g, ' ').slice(0, 200);
  const wrap = (seq: string) => `\x1bPtmux;${seq.replace(/\x1b/g, '\x1b\x1b')}\x1b\\`;
  return wrap(`\x1b]9;${clean(title)}: ${clean(body)}\x07`) + wrap(`\x1b]777;notify;${clean(title)};${clean(body)}\x07`);
}

function writeTty(tty: string, data: string): boolean {
  if (!tty.startsWith('/dev/')) return false;
  try {
    const fd = openSync(tty, constants.O_WRONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
    try {
      writeSync(fd, data);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch {
    return false;
  }
}

export class Notifier {
  private readonly last = new Map<string, string>();
  private readonly hasNotifySend: boolean;

  constructor(
    private channels: NotifyChannels,
    private readonly log: (m: string) => void,
  ) {
    this.hasNotifySend = onPath('notify-send');
  }

  setChannels(c: NotifyChannels): void {
    this.channels = c;
  }

  /**
   * Sends n unless a client shows its window; `key` identifies the transition so that the same
   * one is never announced twice.
   */
  notify(n: Notification, key: string, clients: ClientView[]): boolean {
    if (this.last.get(n.windowId) === key) return false;
    const watching = clients.some((c) => !c.control && c.windowId === n.windowId);
    if (watching) return false;
    this.last.set(n.windowId, key);
    const sent: string[] = [];
    if (this.channels.bell && writeTty(n.paneTty, '\x07')) sent.push('bell');
    if (this.channels.osc) {
      const seq = passthroughOsc(n.title, n.body);
      let k = 0;
      for (const c of clients) if (!c.control && c.passthrough && writeTty(c.paneTty, seq)) k++;
      if (k) sent.push(`osc×${k}`);
    }
    if (this.channels.desktop && this.hasNotifySend) {
      const child = spawn('notify-send', ['-a', 'nerdr', n.title, n.body], { stdio: 'ignore', detached: true });
      child.on('error', () => undefined);
      child.unref();
      sent.push('notify-send');
    }
    if (sent.length) this.log(`notified "${n.title}: ${n.body}" by ${sent.join(', ')}`);
    return true;
  }

  forget(windowId: string): void {
    this.last.delete(windowId);
  }
}
