// Fake Anthropic Messages API (Claude Code): POST /v1/messages with SSE, scripted by keywords.
// Claude Code also probes `HEAD /` at startup (404 is fine) and sends a tool-less "title"
// request for the first prompt, which quotes the prompt: it must get plain text, never a tool.

import { randomBytes } from 'node:crypto';
import {
  BASH_COMMAND,
  BASH_DESCRIPTION,
  QUESTION,
  SUBAGENT_DESCRIPTION,
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

interface Block {
  type: string;
  text?: string;
  content?: unknown;
}
interface Message {
  role: string;
  content: string | Block[];
}
interface Body {
  model?: string;
  messages?: Message[];
  tools?: { name: string }[];
  output_config?: { format?: unknown };
  stream?: boolean;
  safeguards?: { type?: string }[];
}

/** The human text of the last user message, and its blocks. */
function lastHuman(body: Body): { human: string; blocks: Block[] } | null {
  const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (!last) return null;
  const blocks: Block[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  const human = blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => humanText(b.text!))
    .filter((t) => t !== '')
    .join('\n');
  return { human, blocks };
}

/**
 * Claude Code's auto mode asks the server to judge each tool call: the request carries
 * `safeguards: [{type: "dangerous_tool_use", …}]` (beta dangerous-tool-use-2026-09-03) and reads the
 * verdict from `safeguard_results` in the reply's message_delta. AUTO_BLOCK or AUTO_ASK in the
 * turn's prompt: every call is flagged (auto mode refuses it); with AUTO_ASK the model tries again
 * after each refusal, until auto mode stops refusing and asks the user (three in a row). Otherwise
 * no verdict is given, and Claude 2.1.332 runs the call.
 */
function safeguardVerdict(body: Body, toolIds: string[]): unknown[] | undefined {
  if (!Array.isArray(body.safeguards) || !body.safeguards.some((s) => s?.type === 'dangerous_tool_use') || toolIds.length === 0) return undefined;
  const prompt = turnPrompt(body);
  if (!prompt.includes('AUTO_BLOCK') && !prompt.includes('AUTO_ASK')) return undefined;
  const tool_uses = Object.fromEntries(toolIds.map((id) => [id, { type: 'evaluated', outcome: 'flagged', explanation: '[Irreversible Local Destruction] the fake model server flags this call (AUTO_BLOCK)' }]));
  return [{ type: 'dangerous_tool_use', status: { type: 'available', tool_uses } }];
}

/** The human text of the turn: the last user message that has some (tool results have none). */
function turnPrompt(body: Body): string {
  const msgs = body.messages ?? [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    if (msgs[i]!.role !== 'user') continue;
    const h = lastHuman({ messages: [msgs[i]!] })?.human ?? '';
    if (h.trim()) return h;
  }
  return '';
}

/** Tool results since the turn's prompt. */
function toolResultsThisTurn(body: Body): number {
  let n = 0;
  for (const m of [...(body.messages ?? [])].reverse()) {
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') break;
    if (m.content.some((b) => b.type === 'text' && humanText(b.text ?? '').trim())) break;
    n += m.content.filter((b) => b.type === 'tool_result').length;
  }
  return n;
}

export function chooseScript(body: Body): Script {
  if (!body.tools || body.tools.length === 0) return 'title';
  const last = lastHuman(body);
  if (!last) return 'text';
  const { human, blocks } = last;
  // After a denied tool the rejected result and the next prompt share one message: the human text wins.
  if (human.trim()) return scriptFor(human);
  if (blocks.some((b) => b.type === 'tool_result')) return 'after-tool';
  return 'text';
}

const id = (p: string): string => `${p}_${randomBytes(8).toString('hex')}`;

/**
 * The answer of an exhausted plan, as api.anthropic.com gives a claude.ai login (Claude Code
 * 2.1.197 reads these headers in its 429 handling: status "rejected", the reset in epoch seconds,
 * which limit): Claude Code shows "You've hit your session limit · resets 3pm (UTC)".
 */
function planExhausted(res: SseResponse, until: number): void {
  res.raw.writeHead(429, {
    'content-type': 'application/json',
    'x-should-retry': 'false',
    'anthropic-ratelimit-unified-status': 'rejected',
    'anthropic-ratelimit-unified-reset': String(Math.floor(until / 1000)),
    'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    'anthropic-ratelimit-unified-5h-status': 'rejected',
    'anthropic-ratelimit-unified-5h-reset': String(Math.floor(until / 1000)),
    'anthropic-ratelimit-unified-5h-utilization': '1.0',
  });
  res.raw.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed your account\'s rate limit. Please try again later.' } }));
}

async function stream(req: LoggedRequest, res: SseResponse, timing: Timing, server: FakeServer): Promise<void> {
  const body = (req.body ?? {}) as Body;
  const script = chooseScript(body);
  req.script = script;
  const until = script === 'title' && server.exhaustedUntil === null ? null : exhausted(server, script);
  if (until !== null) return planExhausted(res, until);
  const model = body.model ?? 'claude-fake';
  const toolNames = new Set((body.tools ?? []).map((t) => t.name));
  let index = 0;
  let outTokens = 0;

  const text = async (t: string, pieces = chunks(t), gapMs = 30): Promise<void> => {
    res.event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const p of pieces) {
      if (res.closed) return;
      res.event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } });
      outTokens += 3;
      await res.sleep(gapMs);
    }
    res.event('content_block_stop', { type: 'content_block_stop', index });
    index++;
  };
  const toolIds: string[] = [];
  const toolUse = async (name: string, input: unknown): Promise<void> => {
    const toolId = id('toolu');
    toolIds.push(toolId);
    res.event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: toolId, name, input: {} } });
    for (const p of chunks(JSON.stringify(input), 24)) {
      if (res.closed) return;
      res.event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } });
      await res.sleep(10);
    }
    res.event('content_block_stop', { type: 'content_block_stop', index });
    index++;
    outTokens += 20;
  };

  res.start();
  res.event('message_start', {
    type: 'message_start',
    message: {
      id: id('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  });
  res.event('ping', { type: 'ping' });
  let stop = 'end_turn';
  switch (script) {
    case 'title':
      await text(body.output_config?.format ? '{"title": "Harness session"}' : 'Harness session');
      break;
    case 'bash':
      await res.sleep(timing.firstTokenMs);
      await text('I will run a command.');
      await toolUse('Bash', { command: BASH_COMMAND, description: BASH_DESCRIPTION });
      stop = 'tool_use';
      break;
    case 'question':
      await res.sleep(timing.firstTokenMs);
      await toolUse('AskUserQuestion', { questions: [{ ...QUESTION, multiSelect: false }] });
      stop = 'tool_use';
      break;
    case 'subagent': {
      await res.sleep(timing.firstTokenMs);
      const name = toolNames.has('Agent') ? 'Agent' : 'Task';
      await toolUse(name, { description: SUBAGENT_DESCRIPTION, prompt: SUBAGENT_PROMPT, subagent_type: 'general-purpose' });
      stop = 'tool_use';
      break;
    }
    case 'after-tool':
      if (turnPrompt(body).includes('AUTO_ASK') && toolResultsThisTurn(body) < 3) {
        // refused by auto mode: the model tries the same call again
        await res.sleep(300);
        await toolUse('Bash', { command: BASH_COMMAND, description: BASH_DESCRIPTION });
        stop = 'tool_use';
        break;
      }
      await sayText(script, res, timing, text);
      break;
    default:
      await sayText(script, res, timing, text);
  }
  const verdict = safeguardVerdict(body, toolIds);
  res.event('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null, ...(verdict ? { safeguard_results: verdict } : {}) }, usage: { output_tokens: outTokens } });
  res.event('message_stop', { type: 'message_stop' });
}

export function startAnthropic(opts: { logFile?: string; timing?: Partial<Timing> } = {}): Promise<FakeServer> {
  let server: FakeServer;
  const p = startServer(async (req, res) => {
    const path = req.path.split('?')[0];
    if (req.method === 'POST' && path === '/v1/messages') return stream(req, res, server.timing, server);
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') return res.json(200, { input_tokens: 100 });
    res.json(404, { type: 'error', error: { type: 'not_found_error', message: `fake server: nothing at ${req.method} ${req.path}` } });
  }, opts);
  return p.then((s) => (server = s));
}
