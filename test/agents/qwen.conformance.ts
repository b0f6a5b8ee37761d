// Qwen Code under nerdr, against the fake OpenAI Chat Completions server, on the registry's Node 22
// (versions.ts RUNTIMES: Qwen 0.21+ needs Node 22). `npm run test:agents`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { qwen } from './agents.js';
import { entries, firstChatPrompt } from './chat.js';
import { conformance } from './scenario.js';

conformance(qwen, {
  // Qwen sends no session id to the model. Its conversation is the transcript
  // ~/.qwen/projects/<folder>/chats/<id>.jsonl that holds the prompt.
  ownConversationId: (requests, run) => {
    const prompt = firstChatPrompt(requests, ['title', 'subagent-child']);
    if (!prompt) return null;
    const needle = JSON.stringify(prompt).slice(1, -1);
    const root = path.join(run.home, '.qwen', 'projects');
    for (const project of entries(root)) {
      const chats = path.join(root, project, 'chats');
      for (const f of entries(chats).filter((n) => n.endsWith('.jsonl'))) {
        if (readFileSync(path.join(chats, f), 'utf8').includes(needle)) return f.slice(0, -'.jsonl'.length);
      }
    }
    return null;
  },
});
