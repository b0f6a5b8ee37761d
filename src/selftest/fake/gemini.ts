// Fake Gemini API (Gemini CLI with gemini-api-key auth and GOOGLE_GEMINI_BASE_URL):
// POST /v1beta/models/<model>:streamGenerateContent?alt=sse for turns (SSE, `data: {json}` lines),
// :generateContent for side requests, :countTokens. Scripted by keywords.
//
// Side requests of Gemini CLI 0.61.0 (all get script 'title'):
//  - per prompt, a JSON-mode routing request (the default model "auto" asks a classifier,
//    gemini-3.5-flash-lite, for a complexity score) before the turn's own request;
//  - at startup, a tool-less "summarize the user's intent" request for the previous session;
//  - possibly a JSON-mode "next speaker" check after a text answer (not seen in 0.61.0).
// JSON-mode requests carry generationConfig.responseJsonSchema and get an object made from it.
// A 404 for any model makes the CLI open a "you don't have access to <model>" dialog, so every
// model name is accepted.
// Tools are function declarations: run_shell_command, ask_user, invoke_agent (subagents by name:
// generalist, codebase_investigator, cli_help; older versions had one tool per subagent). A
// subagent runs its own loop against the same server (its first user text is the prompt it was
// given) and may only finish by calling complete_task.
// The session id (--session-id) is never sent here: it shows only in hook payloads.

import { randomBytes } from 'node:crypto';
import {
  BASH_COMMAND,
  BASH_DESCRIPTION,
  QUESTION,
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

interface Part {
  text?: string;
  thought?: boolean;
  functionCall?: { name?: string; args?: unknown };
  functionResponse?: { name?: string; response?: unknown };
}
interface Content {
  role?: string;
  parts?: Part[];
}
/** The subset of JSON schema Gemini CLI uses for tool parameters and JSON-mode answers. */
interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  items?: Schema;
  minimum?: number;
}
interface FunctionDeclaration {
  name?: string;
  parameters?: Schema;
  parametersJsonSchema?: Schema;
}
interface Body {
  contents?: Content[];
  tools?: { functionDeclarations?: FunctionDeclaration[] }[];
  generationConfig?: { responseMimeType?: string; responseJsonSchema?: Schema; responseSchema?: Schema };
}

/** The subagent to use: generalist may run anything, the others are read-only specialists. */
const SUBAGENT = 'generalist';
/** Versions before invoke_agent exposed each subagent as its own tool. */
const SUBAGENT_TOOLS = [SUBAGENT, 'codebase_investigator', 'cli_help'];

function text(c: Content): string {
  return (c.parts ?? [])
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => humanText(p.text!))
    .filter((t) => t !== '')
    .join('\n');
}

const declarations = (body: Body): FunctionDeclaration[] => (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);

export function chooseScript(body: Body): Script {
  // JSON mode (routing classifier, next-speaker check) and tool-less requests are side requests
  if (body.generationConfig?.responseMimeType === 'application/json' || declarations(body).length === 0) return 'title';
  const contents = body.contents ?? [];
  const human = contents.map((c) => c.role === 'user' && text(c) !== '').lastIndexOf(true);
  const tool = contents.map((c) => (c.parts ?? []).some((p) => p.functionResponse)).lastIndexOf(true);
  if (tool > human) return 'after-tool';
  return human >= 0 ? scriptFor(text(contents[human]!)) : 'text';
}

/** A value that satisfies a schema: first enum value, small numbers, required fields only. */
function sample(schema: Schema | undefined, str: string): unknown {
  if (!schema) return str;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  switch ((schema.type ?? 'string').toLowerCase()) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? Object.keys(schema.properties ?? {})) out[key] = sample(schema.properties?.[key], str);
      return out;
    }
    case 'array':
      return [sample(schema.items, str)];
    case 'integer':
    case 'number':
      // routing asks for a 1-100 complexity score: low keeps the default (flash) route
      return Math.max(schema.minimum ?? 10, 10);
    case 'boolean':
      return false;
    default:
      return str;
  }
}

const paramsOf = (d: FunctionDeclaration | undefined): Schema | undefined => d?.parametersJsonSchema ?? d?.parameters;

/** Arguments for a tool whose fields we do not know by name: `value` in the first required string field. */
function argsFor(d: FunctionDeclaration | undefined, value: string): Record<string, unknown> {
  const schema = paramsOf(d);
  const args = (sample(schema, value) ?? {}) as Record<string, unknown>;
  const props = schema?.properties ?? {};
  const first = (schema?.required ?? Object.keys(props)).find((k) => (props[k]?.type ?? 'string').toLowerCase() === 'string');
  if (first) args[first] = value;
  return args;
}

/**
 * Writes the answer either as SSE chunks (streamGenerateContent) or, for generateContent, as one
 * JSON body at the end; every chunk is a GenerateContentResponse with one candidate.
 */
class Answer {
  private readonly parts: Part[] = [];
  private started = false;
  constructor(
    private readonly res: SseResponse,
    private readonly streaming: boolean,
    private readonly model: string,
  ) {}
  private chunk(parts: Part[], finishReason?: string): Record<string, unknown> {
    return {
      candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
      ...(finishReason ? { usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 20, totalTokenCount: 70 } } : {}),
      modelVersion: this.model,
      responseId: randomBytes(8).toString('hex'),
    };
  }
  /** Headers go out at once, so the client sees a live stream while the model "thinks". */
  begin(): void {
    if (this.streaming && !this.started) this.res.start();
    this.started = true;
  }
  part(p: Part): void {
    if (this.streaming) this.res.event(null, this.chunk([p]));
    else this.parts.push(p);
  }
  finish(): void {
    if (this.res.closed) return;
    if (this.streaming) this.res.event(null, this.chunk([], 'STOP'));
    else this.res.json(200, this.chunk(mergeText(this.parts), 'STOP'));
  }
}

/** Non-streamed answers carry one text part, as the real API does. */
function mergeText(parts: Part[]): Part[] {
  const t = parts.filter((p) => p.text !== undefined).map((p) => p.text).join('');
  return [...(t ? [{ text: t }] : []), ...parts.filter((p) => p.text === undefined)];
}

async function answer(req: LoggedRequest, res: SseResponse, timing: Timing, model: string, streaming: boolean): Promise<void> {
  const body = (req.body ?? {}) as Body;
  const script = chooseScript(body);
  req.script = script;
  const decls = declarations(body);
  const decl = (name: string): FunctionDeclaration | undefined => decls.find((d) => d.name === name);
  const out = new Answer(res, streaming, model);
  out.begin();

  const say = async (t: string, pieces = chunks(t), gapMs = 30): Promise<void> => {
    for (const p of pieces) {
      if (res.closed) return;
      out.part({ text: p });
      await res.sleep(gapMs);
    }
  };
  const call = (name: string, args: Record<string, unknown>): void => out.part({ functionCall: { name, args } });

  switch (script) {
    case 'title': {
      const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
      // next-speaker check: "user" (the first enum value) ends the turn as the real model would
      await say(schema ? JSON.stringify(sample(schema, 'Harness routing answer.')) : 'Harness session', undefined, 0);
      break;
    }
    case 'bash':
      await res.sleep(timing.firstTokenMs);
      // Gemini's shell tool asks for approval unless a policy allows it
      call('run_shell_command', { command: BASH_COMMAND, description: BASH_DESCRIPTION });
      break;
    case 'question':
      await res.sleep(timing.firstTokenMs);
      if (decl('ask_user')) {
        call('ask_user', { questions: [{ question: QUESTION.question, header: QUESTION.header, type: 'choice', options: QUESTION.options }] });
      } else await say('(fake model: this agent offers no question tool)');
      break;
    case 'subagent': {
      await res.sleep(timing.firstTokenMs);
      const sub = SUBAGENT_TOOLS.find((n) => decl(n));
      if (decl('invoke_agent')) call('invoke_agent', { agent_name: SUBAGENT, prompt: SUBAGENT_PROMPT });
      else if (sub) call(sub, argsFor(decl(sub), SUBAGENT_PROMPT));
      else await say('(fake model: this agent offers no subagent tool)');
      break;
    }
    case 'subagent-child':
      await sayText(script, res, timing, say);
      // a subagent's loop only ends through complete_task (otherwise it is nagged for a minute)
      if (decl('complete_task')) call('complete_task', argsFor(decl('complete_task'), 'The harness subagent said hello.'));
      break;
    default:
      await sayText(script, res, timing, say);
  }
  out.finish();
}

export function startGemini(opts: { logFile?: string; timing?: Partial<Timing> } = {}): Promise<FakeServer> {
  let server: FakeServer;
  return startServer(async (req, res) => {
    const m = /^\/v1(?:beta|alpha)?\/models\/([^/:?]+):(streamGenerateContent|generateContent|countTokens)(?:\?|$)/.exec(req.path);
    if (req.method === 'POST' && m) {
      const [, model = 'gemini-fake', method] = m;
      if (method === 'countTokens') {
        // used for large prompts / compression decisions: a small count keeps everything local
        req.script = 'title';
        return res.json(200, { totalTokens: 50 });
      }
      return answer(req, res, server.timing, model, method === 'streamGenerateContent');
    }
    res.json(404, { error: { code: 404, status: 'NOT_FOUND', message: `fake server: nothing at ${req.method} ${req.path}` } });
  }, opts).then((s) => (server = s));
}
