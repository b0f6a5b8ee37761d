// `nerdr.new`: a window made in `_nerdr` and linked into the caller's session; an agent window
// that asks becomes the new one's parent (its lineage, for the agent limits).

import { childLineage } from '../control.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, node } from './target.js';

export const newWindow = method('nerdr.new', async (host: Pick<MethodHost, 'bySecret' | 'createWindow'>, p) => {
  const agent = p.agent || 'unknown';
  const caller = callerOf(host, p.caller);
  const created = await host.createWindow({
    lineage: childLineage(caller ? node(caller) : null),
    index: p.index ?? undefined,
    userArgs: p.userArgs ?? [],
    agent,
    name: p.name ?? '',
    cwd: p.cwd || process.env.HOME || '/',
    session: p.session,
    argv: p.argv,
    callerEnv: p.callerEnv ?? {},
    env: p.env ?? {},
    watched: p.watched !== false,
    worktree: p.worktree ?? null,
    setup: p.setup ? { command: p.setup.command, hint: p.setup.hint ?? '' } : null,
    conversation: p.conversationId ? { id: p.conversationId, from: p.conversationFrom ?? 'launch' } : null,
    note: p.note ?? '',
    idleAfterMs: p.idleAfterMs ?? null,
  });
  return { window: created.window, pane: created.pane, id: created.id, agent };
});
