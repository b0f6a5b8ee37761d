// `nerdr.respawn`: a new program in an agent's pane (same window, same options): what
// `nerdr restore` does when resuming a conversation fails at once.

import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, checkControl, findTarget } from './target.js';

export const respawn = method('nerdr.respawn', async (host: Pick<MethodHost, 'windows' | 'bySecret' | 'control' | 'respawn'>, p) => {
  const a = findTarget(host, p.target);
  checkControl(host, callerOf(host, p.caller), a, 'restart');
  await host.respawn(a, {
    argv: p.argv,
    env: p.env ?? {},
    callerEnv: p.callerEnv ?? {},
    conversationId: p.conversationId ?? '',
    note: p.note ?? '',
  });
  return { target: a.windowId };
});
