// Codex under nerdr, against the fake OpenAI Responses server. `npm run test:agents`.
import { codex } from './agents.js';
import { conformance } from './scenario.js';
import { limitConformance } from './limits.js';

conformance(codex, {
  // Codex sends its thread (session) id as prompt_cache_key and client_metadata.session_id.
  ownConversationId: (requests) => {
    const r = requests.find((x) => x.script && x.script !== 'title' && x.body && typeof x.body === 'object');
    const b = r?.body as { prompt_cache_key?: string; client_metadata?: { session_id?: string } } | undefined;
    return b?.client_metadata?.session_id ?? b?.prompt_cache_key ?? null;
  },
});

// At its usage limit (test/agents/limits.ts): the 429 usage_limit_reached of an exhausted plan.
limitConformance(codex, { from: 'screen' });
