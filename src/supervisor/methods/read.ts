// `nerdr.read`: a window's mirrored screen, as text or with its colours.

import { RpcError } from '../socket/errors.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';
import { findTarget } from './target.js';

/** How long a read waits for a window's first look (a window just made, a supervisor just started). */
export const READ_WAIT_MS = 3000;

export const read = method('nerdr.read', async (host: Pick<MethodHost, 'windows' | 'clock'>, p) => {
  const a = findTarget(host, p.target);
  if (!a.mirror) {
    await new Promise<void>((resolve) => {
      const timer = host.clock.after(READ_WAIT_MS, resolve);
      void a.screenRead().then(() => {
        timer.cancel();
        resolve();
      });
    });
  }
  if (!a.mirror) throw new RpcError('not_ready', `${a.name} has no screen yet; try again in a moment`);
  const lines = p.lines ?? undefined;
  // --lines N means the last N lines that hold something: blank rows below are not content
  const span = lines === undefined ? undefined : Math.max(lines, a.mirror.rows);
  let text = p.ansi === true ? a.mirror.renderAnsi(span) : a.mirror.renderText(span);
  if (lines !== undefined) text = text.split('\n').slice(0, -1).slice(-lines).join('\n') + (text ? '\n' : '');
  return { target: a.windowId, text };
});
