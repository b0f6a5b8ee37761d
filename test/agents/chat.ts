// What the conformance files of Chat Completions agents (Qwen Code, pi) read from the requests
// their agent sent the fake model.
import { readdirSync } from 'node:fs';
import { humanText, type LoggedRequest, type Script } from '../../src/selftest/fake/common.js';

type Content = string | { type?: string; text?: string }[] | null | undefined;

/** The human prompt of the first request not among `skip` (its text parts without the agent's tags). */
export function firstChatPrompt(requests: LoggedRequest[], skip: Script[]): string | null {
  const r = requests.find((x) => x.script && !skip.includes(x.script));
  const messages = (r?.body as { messages?: { role?: string; content?: Content }[] } | undefined)?.messages ?? [];
  const parts = (c: Content): string[] => (typeof c === 'string' ? [c] : (c ?? []).map((p) => p.text ?? ''));
  const texts = messages.filter((m) => m.role === 'user').flatMap((m) => parts(m.content).map((t) => humanText(t))).filter((t) => t !== '');
  return texts[texts.length - 1] ?? null;
}

/** A folder's entries; none when it is missing. */
export function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
