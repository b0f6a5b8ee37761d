// What the fake model servers answer, over HTTP on 127.0.0.1: Qwen Code's tool names, and the
// auto-mode verdict Claude Code reads from a reply (safeguard_results).
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropic } from '../../src/selftest/fake/anthropic.js';
import { startOpenAIChat } from '../../src/selftest/fake/openai-chat.js';
import type { FakeServer } from '../../src/selftest/fake/common.js';

const FAST = { firstTokenMs: 0, slowChunks: 1, slowChunkMs: 0, slowStartMs: 0, childMs: 0 };
let server: FakeServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function events(url: string, body: unknown): Promise<Record<string, unknown>[]> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.text();
  return text.split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]').map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

describe('fake model replies', () => {
  it('Chat Completions: Qwen\'s run_shell_command, ask_user_question and agent tools are called by their names', async () => {
    server = await startOpenAIChat({ timing: FAST });
    const tool = (name: string) => ({ type: 'function', function: { name, parameters: { properties: {} } } });
    const tools = ['run_shell_command', 'ask_user_question', 'agent'].map(tool);
    const called = async (prompt: string) => {
      const ev = await events(`${server!.url}/v1/chat/completions`, { tools, messages: [{ role: 'user', content: prompt }] });
      const calls = ev.flatMap((e) => (e.choices as { delta?: { tool_calls?: { function: { name: string; arguments: string } }[] } }[] | undefined ?? []).flatMap((c) => c.delta?.tool_calls ?? []));
      return calls.map((c) => [c.function.name, JSON.parse(c.function.arguments) as Record<string, unknown>] as const);
    };
    expect((await called('RUN_BASH now'))[0]![0]).toBe('run_shell_command');
    const q = await called('ASK_QUESTION now');
    expect(q[0]![0]).toBe('ask_user_question');
    expect(q[0]![1]).toMatchObject({ questions: [{ multiSelect: false, options: [{ label: 'Red' }, { label: 'Blue' }] }] });
    expect(await called('SUBAGENT now')).toEqual([['agent', expect.objectContaining({ run_in_background: false, subagent_type: 'general-purpose' })]]);
  });

  it('Anthropic: in auto mode AUTO_BLOCK and AUTO_ASK calls are flagged; AUTO_ASK tries again, three times in all', async () => {
    server = await startAnthropic({ timing: FAST });
    const url = `${server.url}/v1/messages`;
    const safeguards = [{ type: 'dangerous_tool_use', classifier_context: {} }];
    const verdict = (ev: Record<string, unknown>[]) => (ev.find((e) => e.type === 'message_delta')?.delta as { safeguard_results?: unknown } | undefined)?.safeguard_results;
    const toolIds = (ev: Record<string, unknown>[]) => ev.filter((e) => e.type === 'content_block_start' && (e.content_block as { type: string }).type === 'tool_use').map((e) => (e.content_block as { id: string }).id);
    const tools = [{ name: 'Bash' }];
    const prompt = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });

    const blocked = await events(url, { tools, safeguards, messages: [prompt('Please RUN_BASH AUTO_BLOCK now')] });
    const [id] = toolIds(blocked);
    expect(verdict(blocked)).toEqual([{ type: 'dangerous_tool_use', status: { type: 'available', tool_uses: { [id!]: expect.objectContaining({ type: 'evaluated', outcome: 'flagged' }) } } }]);
    // without safeguards (not auto mode), or with an ordinary prompt: no verdict
    expect(verdict(await events(url, { tools, messages: [prompt('Please RUN_BASH AUTO_BLOCK now')] }))).toBeUndefined();
    expect(verdict(await events(url, { tools, safeguards, messages: [prompt('Please RUN_BASH now')] }))).toBeUndefined();

    // AUTO_ASK: after each refusal the model calls again, until three were refused
    const refused = (n: number) => Array.from({ length: n }, (_, i) => [
      { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, is_error: true, content: 'denied by auto mode' }] },
    ]).flat();
    for (const n of [1, 2]) {
      const again = await events(url, { tools, safeguards, messages: [prompt('Please RUN_BASH AUTO_ASK now'), ...refused(n)] });
      expect(toolIds(again), `after ${n} refusal(s)`).toHaveLength(1);
      expect(verdict(again)).toBeDefined();
    }
    const last = await events(url, { tools, safeguards, messages: [prompt('Please RUN_BASH AUTO_ASK now'), ...refused(3)] });
    expect(toolIds(last)).toEqual([]);
  });
});
