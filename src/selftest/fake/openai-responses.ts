// Fake OpenAI Responses API (Codex): POST /v1/responses with SSE, scripted by keywords.
// Codex's shell tool is `exec_command`; under approval_policy "on-request" a command only
// asks for approval when the model requests escalation (sandbox_permissions
// "require_escalated" + a justification). Codex also sends a tool-less title request.

import { randomBytes } from 'node:crypto';
import {
  BASH_COMMAND,
  QUESTION,
  SUBAGENT_PROMPT,
  chunks,
  exhausted,
  humanText,
  sayText,
  scriptFor,
  startServer,
  type FakeServer,
  type LoggedRequest,
  type Script,
  type SseResponse,
  type Timing,
} from './common.js';

interface Item {
  type?: string;
  role?: string;
  name?: string;
  call_id?: string;
  output?: unknown;
  content?: string | { type: string; text?: string }[];
}
interface Tool {
  type?: string;
  name?: string;
  tools?: Tool[];
  parameters?: { properties?: Record<string, unknown> };
}
interface Body {
  model?: string;
  input?: Item[] | string;
  tools?: Tool[];
}

export function chooseScript(body: Body): Script {
  if (!body.tools || body.tools.length === 0) return 'title';
  const input = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : (body.input ?? []);
  const isHuman = (i: Item): boolean => (i.type === 'message' || i.type === undefined) && i.role === 'user' && itemText(i) !== '';
  const human = input.map(isHuman).lastIndexOf(true);
  const output = input.map((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').lastIndexOf(true);
  // A tool result newer than the last prompt (Codex may add notices after it, e.g. <subagent_notification>).
  if (output > human) {
    const call = input.find((i) => i.type === 'function_call' && i.call_id === input[output]!.call_id);
    return call?.name === 'spawn_agent' ? 'subagent-wait' : 'after-tool'; // spawn_agent returns at once: wait for it
  }
  return human >= 0 ? scriptFor(itemText(input[human]!)) : 'text';
}

function itemText(i: Item): string {
  const parts = typeof i.content === 'string' ? [i.content] : (i.content ?? []).map((c) => c.text ?? '');
  return parts.map((t) => humanText(t ?? '')).filter((t) => t !== '').join('\n');
}

const id = (p: string): string => `${p}_${randomBytes(8).toString('hex')}`;

/**
 * The answer of an exhausted plan, as the ChatGPT backend gives Codex (codex-rs api_bridge.rs:
 * a 429 whose error type is "usage_limit_reached" carries the plan and the reset in epoch
 * seconds): Codex shows "You've hit your usage limit. … try again at 3:05 PM."
 */
function planExhausted(res: SseResponse, until: number): void {
  res.json(429, {
    error: {
      type: 'usage_limit_reached',
      message: 'The usage limit has been reached',
      plan_type: 'pro',
      resets_at: Math.floor(until / 1000),
      resets_in_seconds: Math.max(0, Math.round((until - Date.now()) / 1000)),
    },
  });
}

async function stream(req: LoggedRequest, res: SseResponse, timing: Timing, server: FakeServer): Promise<void> {
  const body = (req.body ?? {}) as Body;
  const script = chooseScript(body);
  req.script = script;
  const until = script === 'title' && server.exhaustedUntil === null ? null : exhausted(server, script);
  if (until !== null) return planExhausted(res, until);
  // function tools, and the ones inside namespaces (multi_agent_v1: spawn_agent, wait_agent, …)
  const namespaceOf = new Map<string, string>();
  for (const t of body.tools ?? []) for (const inner of t.type === 'namespace' ? (t.tools ?? []) : []) if (inner.name) namespaceOf.set(inner.name, t.name ?? '');
  const tools = new Map((body.tools ?? []).filter((t) => t.name).map((t) => [t.name!, t]));
  const responseId = id('resp');
  const output: unknown[] = [];
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>): void => res.event(type, { type, sequence_number: seq++, ...data });

  const message = async (text: string, pieces = chunks(text), gapMs = 30): Promise<void> => {
    const itemId = id('msg');
    const outputIndex = output.length;
    ev('response.output_item.added', { output_index: outputIndex, item: { type: 'message', id: itemId, status: 'in_progress', role: 'assistant', content: [] } });
    ev('response.content_part.added', { item_id: itemId, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    for (const p of pieces) {
      if (res.closed) return;
      ev('response.output_text.delta', { item_id: itemId, output_index: outputIndex, content_index: 0, delta: p });
      await res.sleep(gapMs);
    }
    const item = { type: 'message', id: itemId, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
    ev('response.output_text.done', { item_id: itemId, output_index: outputIndex, content_index: 0, text });
    ev('response.output_item.done', { output_index: outputIndex, item });
    output.push(item);
  };
  const call = (name: string, args: unknown): void => {
    const outputIndex = output.length;
    const ns = namespaceOf.get(name);
    const item = { type: 'function_call', id: id('fc'), call_id: id('call'), name, ...(ns ? { namespace: ns } : {}), arguments: JSON.stringify(args), status: 'completed' };
    ev('response.output_item.added', { output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } });
    ev('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta: item.arguments });
    ev('response.output_item.done', { output_index: outputIndex, item });
    output.push(item);
  };

  res.start();
  ev('response.created', { response: { id: responseId, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'in_progress', model: body.model ?? 'gpt-fake', output: [] } });
  switch (script) {
    case 'title':
      await message('Harness session');
      break;
    case 'bash': {
      await res.sleep(timing.firstTokenMs);
      const justification = 'Create a marker file for the harness?';
      if (tools.has('exec_command')) call('exec_command', { cmd: BASH_COMMAND, sandbox_permissions: 'require_escalated', justification });
      else if (tools.has('shell_command')) call('shell_command', { command: BASH_COMMAND, sandbox_permissions: 'require_escalated', justification });
      else call('shell', { command: ['bash', '-lc', BASH_COMMAND], with_escalated_permissions: true, justification });
      break;
    }
    case 'question':
      await res.sleep(timing.firstTokenMs);
      if (tools.has('request_user_input')) {
        call('request_user_input', {
          questions: [{ id: 'colour', header: QUESTION.header, question: QUESTION.question, options: QUESTION.options }],
        });
      } else await message('(fake model: this agent offers no question tool)');
      break;
    case 'subagent':
      await res.sleep(timing.firstTokenMs);
      if (tools.has('spawn_agent') || namespaceOf.has('spawn_agent')) call('spawn_agent', { message: SUBAGENT_PROMPT });
      else await message('(fake model: this agent offers no subagent tool)');
      break;
    case 'subagent-wait': {
      await res.sleep(500);
      const input = Array.isArray(body.input) ? body.input : [];
      const out = JSON.stringify(input[input.length - 1]?.output ?? '');
      const agentId = /"(?:agent_id|id)\\?"\s*:\s*\\?"([^"\\]+)/.exec(out)?.[1] ?? /[0-9a-f]{8}-[0-9a-f-]{27,}/.exec(out)?.[0];
      if (agentId) call('wait_agent', { targets: [agentId], timeout_ms: 60000 });
      else await message(`(fake model: no agent id in the spawn_agent result: ${out.slice(0, 200)})`);
      break;
    }
    default:
      await sayText(script, res, timing, message);
  }
  if (res.closed) return;
  ev('response.completed', {
    response: {
      id: responseId,
      object: 'response',
      status: 'completed',
      model: body.model ?? 'gpt-fake',
      output,
      usage: { input_tokens: 50, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 70 },
    },
  });
}

export function startOpenAIResponses(opts: { logFile?: string; timing?: Partial<Timing> } = {}): Promise<FakeServer> {
  let server: FakeServer;
  return startServer(async (req, res) => {
    const path = req.path.split('?')[0];
    if (req.method === 'POST' && path === '/v1/responses') return stream(req, res, server.timing, server);
    res.json(404, { error: { type: 'not_found', message: `fake server: nothing at ${req.method} ${req.path}` } });
  }, opts).then((s) => (server = s));
}
