// Claude Code under nerdr, against the fake Anthropic server. `npm run test:agents`.
import { claude } from './agents.js';
import { conformance } from './scenario.js';

conformance(claude, {
  // Claude Code sends its session id with every request (the same as --session-id).
  ownConversationId: (requests) => {
    const r = requests.find((x) => x.script && x.script !== 'title' && typeof x.headers['x-claude-code-session-id'] === 'string');
    return (r?.headers['x-claude-code-session-id'] as string | undefined) ?? null;
  },
});
