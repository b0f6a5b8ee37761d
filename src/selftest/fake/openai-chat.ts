// Fake OpenAI Chat Completions API: POST /v1/chat/completions with SSE, scripted by keywords.
// opencode (through @ai-sdk/openai-compatible) sends a tool-less title request first; its tools are
// bash, question, task, read, … Qwen Code's are run_shell_command, ask_user_question and agent. Copilot CLI (BYOK offline mode, OpenAI JS SDK) has bash, ask_user
// and task (with its own required fields), and puts <current_datetime> before the prompt.

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

interface Message {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
}
interface Body {
  model?: string;
  messages?: Message[];
  tools?: { type?: string; function?: { name?: string; parameters?: { properties?: Record<string, unknown> } } }[];
}

function text(m: Message): string {
  const parts = typeof m.content === 'string' ? [m.content] : (m.content ?? []).map((c) => c.text ?? '');
  return parts.map((t) => humanText(t ?? '')).filter((t) => t !== '').join('\n');
}

export function chooseScript(body: Body): Script {
  if (!body.tools || body.tools.length === 0) return 'title';
  const msgs = body.messages ?? [];
  const human = msgs.map((m) => m.role === 'user' && text(m) !== '').lastIndexOf(true);
  const tool = msgs.map((m) => m.role === 'tool').lastIndexOf(true);
  if (tool > human) return 'after-tool';
  return human >= 0 ? scriptFor(text(msgs[human]!)) : 'text';
}

const id = (p: string): string => `${p}_${randomBytes(8).toString('hex')}`;

async function stream(req: LoggedRequest, res: SseResponse, timing: Timing): Promise<void> {
  const body = (req.body ?? {}) as Body;
  const script = chooseScript(body);
  req.script = script;
  const tools = new Set((body.tools ?? []).map((t) => t.function?.name ?? ''));
  const params = (name: string): Record<string, unknown> => body.tools?.find((t) => t.function?.name === name)?.function?.parameters?.properties ?? {};
  const completionId = id('chatcmpl');
  const model = body.model ?? 'gpt-fake';
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): void =>
    res.event(null, { id: completionId, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }] });

  const say = async (t: string, pieces = chunks(t), gapMs = 30): Promise<void> => {
    for (const p of pieces) {
      if (res.closed) return;
      chunk({ content: p });
      await res.sleep(gapMs);
    }
  };
  let toolIndex = 0;
  const call = (name: string, args: unknown): void => {
    chunk({ tool_calls: [{ index: toolIndex++, id: id('call'), type: 'function', function: { name, arguments: JSON.stringify(args) } }] });
  };

  res.start();
  chunk({ role: 'assistant', content: '' });
  let finish = 'stop';
  switch (script) {
    case 'title':
      await say('Harness session');
      break;
    case 'bash':
      await res.sleep(timing.firstTokenMs);
      // Qwen Code's shell tool is run_shell_command
      call(tools.has('run_shell_command') ? 'run_shell_command' : 'bash', { command: BASH_COMMAND, description: BASH_DESCRIPTION });
      finish = 'tool_calls';
      break;
    case 'question':
      await res.sleep(timing.firstTokenMs);
      if (tools.has('question')) {
        call('question', { questions: [{ question: QUESTION.question, header: QUESTION.header, options: QUESTION.options }] });
        finish = 'tool_calls';
      } else if (tools.has('ask_user_question')) {
        // Qwen Code: opencode's questions[] shape, single choice
        call('ask_user_question', { questions: [{ question: QUESTION.question, header: QUESTION.header, options: QUESTION.options, multiSelect: false }] });
        finish = 'tool_calls';
      } else if (tools.has('ask_user')) {
        // Copilot: a form described by a JSON schema; one single-select field
        const field = { type: 'string', title: QUESTION.header, oneOf: QUESTION.options.map((o) => ({ const: o.label, title: o.label })) };
        call('ask_user', { message: QUESTION.question, requestedSchema: { type: 'object', properties: { colour: field }, required: ['colour'] } });
        finish = 'tool_calls';
      } else await say('(fake model: this agent offers no question tool)');
      break;
    case 'subagent':
      await res.sleep(timing.firstTokenMs);
      if (tools.has('task')) {
        // Copilot's task requires agent_type and name, and runs in the foreground with mode "sync"
        const args = 'agent_type' in params('task')
          ? { description: SUBAGENT_DESCRIPTION, prompt: SUBAGENT_PROMPT, agent_type: 'general-purpose', name: 'harness-child', mode: 'sync' }
          : { description: SUBAGENT_DESCRIPTION, prompt: SUBAGENT_PROMPT, subagent_type: 'general' };
        call('task', args);
        finish = 'tool_calls';
      } else if (tools.has('agent')) {
        // Qwen Code's subagent tool runs in the background unless told
        call('agent', { description: SUBAGENT_DESCRIPTION, prompt: SUBAGENT_PROMPT, subagent_type: 'general-purpose', run_in_background: false });
        finish = 'tool_calls';
      } else await say('(fake model: this agent offers no subagent tool)');
      break;
    default:
      await sayText(script, res, timing, say);
  }
  if (res.closed) return;
  chunk({}, finish);
  res.event(null, { id: completionId, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [], usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 } });
  res.event(null, '[DONE]');
}

export function startOpenAIChat(opts: { logFile?: string; timing?: Partial<Timing> } = {}): Promise<FakeServer> {
  let server: FakeServer;
  return startServer(async (req, res) => {
    const path = req.path.split('?')[0];
    if (req.method === 'POST' && path === '/v1/chat/completions') return stream(req, res, server.timing);
    res.json(404, { error: { type: 'not_found', message: `fake server: nothing at ${req.method} ${req.path}` } });
  }, opts).then((s) => (server = s));
}
