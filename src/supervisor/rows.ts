// A watched window as the socket answers it: the AgentRow of src/protocol/rows.ts.

import type { AgentRow } from '../protocol/index.js';
import type { WatchedAgent } from './agent.js';
import type { Messenger } from './messages.js';

export function agentRow(a: WatchedAgent, messages: Pick<Messenger, 'queue'>, conflicts?: { mark(path: string | null): string | null }): AgentRow {
  const first = a.links[0];
  const v = a.arbiter.view();
  const q = messages.queue(a);
  return {
    queue: q.messages.length,
    queueStalled: q.stalledAt !== null,
    note: a.note,
    args: a.args,
    background: v.background,
    subagents: v.subagents,
    backgroundTasks: v.backgroundTasks,
    conversationId: a.hibernation?.conversationId ?? v.conversationId,
    conversationFrom: a.hibernation ? 'launch' : v.conversationFrom,
    seen: a.state === 'done' || a.state === 'idle' ? v.seen : null,
    name: a.name,
    agent: a.agent,
    reportedAgent: v.reportedAgent,
    title: v.presentation.title,
    displayAgent: v.presentation.displayAgent,
    stateLabel: v.presentation.stateLabels[a.state] ?? null,
    stateLabels: v.presentation.stateLabels,
    tokens: v.presentation.tokens,
    state: a.state,
    stateSince: a.stateSince,
    limit: a.state === 'limited' && v.limit ? { words: v.limit.words, resetAt: v.limit.resetAt, resetText: v.limit.resetText } : null,
    session: first?.session ?? '',
    sessions: a.links.map((l) => l.session),
    window: a.windowId,
    windowIndex: first ? first.index : null,
    pane: a.paneId,
    cwd: a.cwd,
    id: a.id,
    exitStatus: a.dead ? a.deadStatus : null,
    parent: a.lineage[0] ?? null,
    worktree: a.worktree,
    branch: a.branch,
    base: a.base,
    conflict: conflicts?.mark(a.worktree) ?? null,
    hibernated: a.hibernation ? { since: a.hibernation.since, rssKb: a.hibernation.rssKb } : null,
  };
}
