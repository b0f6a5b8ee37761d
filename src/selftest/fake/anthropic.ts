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
}

export function chooseScript(body: Body): Script {
  if (!body.tools || body.tools.length === 0) return 'title';
  const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (!last) return 'text';
  const blocks: Block[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  const human = blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => humanText(b.text!))
    .filter((t) => t !== '')
    .join('\n');
  // After a denied tool the rejected result and the next prompt share one message: the human text wins.
  if (human.trim()) return scriptFor(human);
  if (blocks.some((b) => b.type === 'tool_result')) return 'after-tool';
  return 'text';
}

const id = (p: string): string => `${p}_${randomBytes(8).toString('hex')}`;

async function stream(req: LoggedRequest, res: SseResponse, timing: Timing): Promise<void> {
  const body = (req.body ?? {}) as Body;
  const script = chooseScript(body);
  req.script = script;
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
  const toolUse = async (name: string, input: unknown): Promise<void> => {
    res.event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: id('toolu'), name, input: {} } });
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
    default:
      await sayText(script, res, timing, text);
  }
  res.event('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: outTokens } });
  res.event('message_stop', { type: 'message_stop' });
}

export function startAnthropic(opts: { logFile?: string; timing?: Partial<Timing> } = {}): Promise<FakeServer> {
  let server: FakeServer;
  const p = startServer(async (req, res) => {
    const path = req.path.split('?')[0];
    if (req.method === 'POST' && path === '/v1/messages') return stream(req, res, server.timing);
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') return res.json(200, { input_tokens: 100 });
    res.json(404, { type: 'error', error: { type: 'not_found_error', message: `fake server: nothing at ${req.method} ${req.path}` } });
  }, opts);
  return p.then((s) => (server = s));
}
