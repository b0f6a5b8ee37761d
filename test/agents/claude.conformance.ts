// Claude Code under nerdr, against the fake Anthropic server. `npm run test:agents`.
import { claude } from './agents.js';
import { conformance } from './scenario.js';
import { limitConformance } from './limits.js';

conformance(claude, {
  // Claude Code sends its session id with every request (the same as --session-id).
  ownConversationId: (requests) => {
    const r = requests.find((x) => x.script && x.script !== 'title' && typeof x.headers['x-claude-code-session-id'] === 'string');
    return (r?.headers['x-claude-code-session-id'] as string | undefined) ?? null;
  },
});

// At its usage limit (test/agents/limits.ts): Claude words a plan's limit only for a claude.ai
// login, so this run has an OAuth token (for the fake server) where the main one has an API key.
limitConformance(claude, {
  // its StopFailure hook (error "rate_limit", the words in last_assistant_message)
  from: 'hook',
  env: (env) => {
    const { ANTHROPIC_API_KEY: _key, ...rest } = env;
    return { ...rest, CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-fake-harness-token' };
  },
});
