// GitHub Copilot CLI under nerdr, offline (COPILOT_OFFLINE + a BYOK provider), against the fake
// OpenAI Chat Completions server. `npm run test:agents`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { copilot } from './agents.js';
import { humanText } from '../../src/selftest/fake/common.js';
import { conformance } from './scenario.js';

/** The human prompt of the first main-agent request (Copilot marks a subagent's as x-initiator: agent). */
function firstPrompt(requests: { script?: string; headers: Record<string, unknown>; body: unknown }[]): string | null {
  const r = requests.find((x) => x.script && x.script !== 'title' && x.headers['x-initiator'] === 'user');
  const msgs = ((r?.body as { messages?: { role: string; content?: unknown }[] } | undefined)?.messages ?? []).filter((m) => m.role === 'user');
  const last = msgs[msgs.length - 1];
  return typeof last?.content === 'string' ? humanText(last.content) || null : null;
}

conformance(copilot, {
  // Copilot sends no session id to the model. Its conversation is the folder
  // ~/.copilot/session-state/<id>/ whose events.jsonl holds the prompt of that request.
  ownConversationId: (requests, run) => {
    const prompt = firstPrompt(requests);
    if (!prompt) return null;
    const root = path.join(run.home, '.copilot', 'session-state');
    let dirs: string[] = [];
    try {
      dirs = readdirSync(root);
    } catch {
      return null;
    }
    const needle = JSON.stringify(prompt).slice(1, -1);
    return dirs.find((d) => {
      try {
        return readFileSync(path.join(root, d, 'events.jsonl'), 'utf8').includes(needle);
      } catch {
        return false;
      }
    }) ?? null;
  },
});
