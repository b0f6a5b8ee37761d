// Kilo Code CLI under nerdr (an opencode fork), against the fake OpenAI Chat Completions server. `npm run test:agents`.
import { kilo } from './agents.js';
import { conformance } from './scenario.js';

conformance(kilo, {
  // Kilo, like opencode, sends its session id (ses_…) as x-session-id; a subagent's requests carry its own
  // (and x-parent-session-id), so the first main-turn request names the conversation.
  ownConversationId: (requests) => {
    const r = requests.find((x) => x.script && x.script !== 'title' && x.script !== 'subagent-child' && typeof x.headers['x-session-id'] === 'string');
    return (r?.headers['x-session-id'] as string | undefined) ?? null;
  },
});
