// Qwen Code under nerdr, against the fake OpenAI Chat Completions server, on the registry's Node 22
// (versions.ts RUNTIMES: Qwen 0.21+ needs Node 22). `npm run test:agents`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { qwen } from './agents.js';
import { humanText, type LoggedRequest } from '../../src/selftest/fake/common.js';
import { conformance } from './scenario.js';

type Content = string | { type?: string; text?: string }[] | null | undefined;

/** The human prompt of the first turn request (its text parts without Qwen's <system-reminder>). */
function firstPrompt(requests: LoggedRequest[]): string | null {
  const r = requests.find((x) => x.script && x.script !== 'title' && x.script !== 'subagent-child');
  const messages = (r?.body as { messages?: { role?: string; content?: Content }[] } | undefined)?.messages ?? [];
  const parts = (c: Content): string[] => (typeof c === 'string' ? [c] : (c ?? []).map((p) => p.text ?? ''));
  const texts = messages.filter((m) => m.role === 'user').flatMap((m) => parts(m.content).map((t) => humanText(t))).filter((t) => t !== '');
  return texts[texts.length - 1] ?? null;
}

conformance(qwen, {
  // Qwen sends no session id to the model. Its conversation is the transcript
  // ~/.qwen/projects/<folder>/chats/<id>.jsonl that holds the prompt.
  ownConversationId: (requests, run) => {
    const prompt = firstPrompt(requests);
    if (!prompt) return null;
    const needle = JSON.stringify(prompt).slice(1, -1);
    const root = path.join(run.home, '.qwen', 'projects');
    const list = (d: string): string[] => {
      try {
        return readdirSync(d);
      } catch {
        return [];
      }
    };
    for (const project of list(root)) {
      const chats = path.join(root, project, 'chats');
      for (const f of list(chats).filter((n) => n.endsWith('.jsonl'))) {
        if (readFileSync(path.join(chats, f), 'utf8').includes(needle)) return f.slice(0, -'.jsonl'.length);
      }
    }
    return null;
  },
});
