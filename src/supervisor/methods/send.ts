// `nerdr.send`: a message queued for a window, on disk before the answer; delivered when the
// agent waits for input (src/supervisor/messages.ts).

import path from 'node:path';
import { configDir } from '../../paths.js';
import type { WatchedAgent } from '../agent.js';
import { MAX_MESSAGE_BYTES } from '../messages.js';
import { RpcError } from '../socket/errors.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, checkControl, findTarget } from './target.js';

export const send = method('nerdr.send', (host: Pick<MethodHost, 'windows' | 'bySecret' | 'control' | 'messages' | 'wake' | 'log'>, p) => {
  const a = findTarget(host, p.target);
  checkControl(host, callerOf(host, p.caller), a, 'send to');
  if (Buffer.byteLength(p.message) > MAX_MESSAGE_BYTES) throw new RpcError('too_large', `a message may hold at most ${MAX_MESSAGE_BYTES} bytes`);
  if (a.unknowable !== null && !a.dead) throw unknowableError(a, a.unknowable);
  const r = host.messages.enqueue(a, p.message);
  // a hibernated agent wakes for it; the message is typed once it waits for input again
  const waking = a.hibernation !== null;
  if (waking) void host.wake(a, { why: 'a message was sent to it' }).catch((err: Error) => host.log('warn', `${a.name}: wake for a message failed: ${err.message}`));
  const q = a.arbiter.view().quiet;
  // a program the quiet rule reads: what "idle" means for it
  const waitsFor = q ? { waitsFor: `its output is quiet for ${q.idleAfterMs / 1000} s with the cursor on an input line` } : {};
  return { target: a.windowId, ...r, state: a.state, exited: a.dead, ...(waking ? { waking: true } : {}), ...waitsFor };
});

/**
 * A message for a window whose program nerdr cannot read (no manifest knows it, and the quiet
 * rule cannot say whether it waits): refused at once rather than queued for ever.
 */
function unknowableError(a: WatchedAgent, why: string): RpcError {
  const manifest = `a manifest of your own, ${path.join(configDir(), 'agent-detection')}/<program>.toml (docs/manifest-format.md)`;
  const fix = a.idleAfterMs === 0
    ? `start it with the quiet rule on (nerdr new --cmd … --idle-after 3), or give the program ${manifest}`
    : `send it once it waits at a prompt (nerdr explain ${a.name} says when), or give the program ${manifest}`;
  return new RpcError('state_unknowable', `${a.name} (${a.windowId}): ${why}; the message was not queued`, false, fix);
}
