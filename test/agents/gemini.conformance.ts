// Gemini CLI under nerdr, against the fake Gemini API (GOOGLE_GEMINI_BASE_URL), with nerdr's
// opt-in extension. `npm run test:agents`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gemini } from './agents.js';
import { humanText, type LoggedRequest } from '../../src/selftest/fake/common.js';
import { conformance } from './scenario.js';

/** The human prompt of the first turn request (side requests are scripted 'title'). */
function firstPrompt(requests: LoggedRequest[]): string | null {
  const r = requests.find((x) => x.script && x.script !== 'title' && x.script !== 'subagent-child');
  const contents = (r?.body as { contents?: { role?: string; parts?: { text?: string }[] }[] } | undefined)?.contents ?? [];
  const texts = contents.filter((c) => c.role === 'user').flatMap((c) => (c.parts ?? []).map((p) => humanText(p.text ?? ''))).filter((t) => t !== '');
  return texts[texts.length - 1] ?? null;
}

conformance(gemini, {
  // Gemini sends no session id to the model. Its conversation is the transcript
  // ~/.gemini/tmp/<project>/chats/session-*.jsonl that holds the prompt; its first line names the id.
  ownConversationId: (requests, run) => {
    const prompt = firstPrompt(requests);
    if (!prompt) return null;
    const needle = JSON.stringify(prompt).slice(1, -1);
    const tmp = path.join(run.home, '.gemini', 'tmp');
    const list = (d: string): string[] => {
      try {
        return readdirSync(d);
      } catch {
        return [];
      }
    };
    for (const project of list(tmp)) {
      const chats = path.join(tmp, project, 'chats');
      // session-*.jsonl per conversation (a folder beside it holds its subagents' transcripts)
      for (const f of list(chats).filter((n) => n.endsWith('.jsonl'))) {
        const text = readFileSync(path.join(chats, f), 'utf8');
        if (!text.includes(needle)) continue;
        const first = JSON.parse(text.split('\n')[0]!) as { sessionId?: string };
        return first.sessionId ?? null;
      }
    }
    return null;
  },
});
