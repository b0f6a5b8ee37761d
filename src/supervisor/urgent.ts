// Which agents need the user, most urgent first: what `nerdr next` goes to and what a focus of
// nerdr's pane inside herdr switches to (herdr-uplink.ts).

import type { AgentRow } from '../protocol/index.js';

/** Blocked agents (oldest first), then unseen finished ones; `session` null: every session. */
export function urgentOrder(agents: AgentRow[], session: string | null): AgentRow[] {
  const scope = session === null ? agents : agents.filter((a) => a.sessions.includes(session));
  const oldest = (state: string) => scope.filter((a) => a.state === state).sort((x, y) => x.stateSince - y.stateSince);
  return [...oldest('blocked'), ...oldest('done')];
}
