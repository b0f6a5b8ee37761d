// Fabricated Claude and Codex logs in the shapes the real CLIs write (see src/extras/logs.ts).

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const lines = (objs: unknown[]): string => objs.map((o) => JSON.stringify(o)).join('\n') + '\n';

export function claudeLog(home: string, cwd: string, session: string, at = '2026-11-30T08:00:00.000Z'): string {
  const dir = path.join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${session}.jsonl`);
  const base = { cwd, sessionId: session, version: '2.1.0', gitBranch: 'main', userType: 'external', isSidechain: false };
  const usage = { input_tokens: 10, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: 50 };
  writeFileSync(
    file,
    lines([
      { type: 'summary', summary: 'Fixing the parser', leafUuid: 'x' },
      { ...base, type: 'user', uuid: 'u1', timestamp: at, message: { role: 'user', content: 'Please fix the flaky parser test' } },
      // one API message, written as two lines (thinking, then text) that repeat its usage
      { ...base, type: 'assistant', uuid: 'a1', requestId: 'req_1', timestamp: at, message: { id: 'msg_1', role: 'assistant', model: 'claude-x', content: [{ type: 'thinking', thinking: 'hmm' }], usage: { ...usage, output_tokens: 5 } } },
      { ...base, type: 'assistant', uuid: 'a2', requestId: 'req_1', timestamp: at, message: { id: 'msg_1', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'The parser drops the last token; I will patch tokenize().' }], usage } },
      { ...base, type: 'assistant', uuid: 'a3', requestId: 'req_2', timestamp: at, message: { id: 'msg_2', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }], usage } },
      { ...base, type: 'user', uuid: 'u2', timestamp: at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'all 12 tests passed' }] } },
    ]),
  );
  return file;
}

export function codexLog(home: string, cwd: string, id: string, at = '2026-11-30T09:00:00.000Z'): string {
  const dir = path.join(home, '.codex', 'sessions', '2026', '11', '30');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `rollout-2026-11-30T09-00-00-${id}.jsonl`);
  const tc = (total: { input_tokens: number; cached_input_tokens: number; output_tokens: number }, time: string) => ({
    timestamp: time,
    type: 'event_msg',
    payload: { type: 'token_count', info: { total_token_usage: { ...total, reasoning_output_tokens: 0, total_tokens: total.input_tokens + total.output_tokens }, last_token_usage: total, model_context_window: 200000 }, rate_limits: null },
  });
  writeFileSync(
    file,
    lines([
      { timestamp: at, type: 'session_meta', payload: { id, timestamp: at, cwd, originator: 'codex-tui', cli_version: '0.171.0' } },
      { timestamp: at, type: 'turn_context', payload: { cwd, approval_policy: 'on-request', model: 'gpt-fake' } },
      { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>cwd</environment_context>' }] } },
      { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'add a README section about the parser' }] } },
      { timestamp: at, type: 'event_msg', payload: { type: 'token_count', info: null, rate_limits: null } },
      tc({ input_tokens: 1000, cached_input_tokens: 400, output_tokens: 100 }, at),
      // the same total again: counted once
      tc({ input_tokens: 1000, cached_input_tokens: 400, output_tokens: 100 }, at),
      { timestamp: at, type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: 'c1' } },
      { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Added the parser section to README.md.' }] } },
      tc({ input_tokens: 2500, cached_input_tokens: 1400, output_tokens: 300 }, '2026-11-30T10:00:00.000Z'),
    ]),
  );
  return file;
}
