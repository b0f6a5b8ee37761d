// pi under nerdr, against the fake OpenAI Chat Completions server, on the registry's Node 22
// (versions.ts RUNTIMES: pi 1.6 needs Node 22.19). `npm run test:agents`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pi } from './agents.js';
import { entries, firstChatPrompt } from './chat.js';
import { conformance } from './scenario.js';

conformance(pi, {
  // pi sends no session id to the model. Its conversation is the session file
  // ~/.pi/agent/sessions/--<folder>--/<time>_<id>.jsonl that holds the prompt; its first line
  // (the session header) carries the id.
  ownConversationId: (requests, run) => {
    const prompt = firstChatPrompt(requests, ['title', 'after-tool']);
    if (!prompt) return null;
    const needle = JSON.stringify(prompt).slice(1, -1);
    const root = path.join(run.home, '.pi', 'agent', 'sessions');
    for (const folder of entries(root)) {
      for (const f of entries(path.join(root, folder)).filter((n) => n.endsWith('.jsonl'))) {
        const text = readFileSync(path.join(root, folder, f), 'utf8');
        if (!text.includes(needle)) continue;
        const head = JSON.parse(text.split('\n')[0] ?? '{}') as { id?: string };
        return head.id ?? null;
      }
    }
    return null;
  },
});
