// pi under nerdr, against the fake OpenAI Chat Completions server, on the registry's Node 22
// (versions.ts RUNTIMES: pi 1.6 needs Node 22.19). `npm run test:agents`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pi } from './agents.js';
import { humanText, type LoggedRequest } from '../../src/selftest/fake/common.js';
import { conformance } from './scenario.js';

type Content = string | { type?: string; text?: string }[] | null | undefined;

/** The human prompt of the first turn request. */
function firstPrompt(requests: LoggedRequest[]): string | null {
  const r = requests.find((x) => x.script && x.script !== 'title' && x.script !== 'after-tool');
  const messages = (r?.body as { messages?: { role?: string; content?: Content }[] } | undefined)?.messages ?? [];
  const parts = (c: Content): string[] => (typeof c === 'string' ? [c] : (c ?? []).map((p) => p.text ?? ''));
  const texts = messages.filter((m) => m.role === 'user').flatMap((m) => parts(m.content).map((t) => humanText(t))).filter((t) => t !== '');
  return texts[texts.length - 1] ?? null;
}

conformance(pi, {
  // pi sends no session id to the model. Its conversation is the session file
  // ~/.pi/agent/sessions/--<folder>--/<time>_<id>.jsonl that holds the prompt; its first line
  // (the session header) carries the id.
  ownConversationId: (requests, run) => {
    const prompt = firstPrompt(requests);
    if (!prompt) return null;
    const needle = JSON.stringify(prompt).slice(1, -1);
    const root = path.join(run.home, '.pi', 'agent', 'sessions');
    const list = (d: string): string[] => {
      try {
        return readdirSync(d);
      } catch {
        return [];
      }
    };
    for (const folder of list(root)) {
      for (const f of list(path.join(root, folder)).filter((n) => n.endsWith('.jsonl'))) {
        const text = readFileSync(path.join(root, folder, f), 'utf8');
        if (!text.includes(needle)) continue;
        const head = JSON.parse(text.split('\n')[0] ?? '{}') as { id?: string };
        return head.id ?? null;
      }
    }
    return null;
  },
});
