import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOOK_AGENTS, mapHookPayload } from '../../../src/integrations/events/index.js';
import { SHARED_FIXTURES } from '../../shared-fixtures.js';
import path from 'node:path';

const FIX = path.join(SHARED_FIXTURES, 'hooks');
const lines = (f: string) => readFileSync(`${FIX}/${f}`, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('claude mapping (real payloads)', () => {
  const hooks = lines('claude-hooks.jsonl').filter((o) => !('harness_mark' in o));
  const kinds = hooks.map((o) => mapHookPayload('claude', o)?.kind ?? null);
  it('maps every recorded event', () => {
    expect(kinds).toEqual([
      'session-start', 'prompt-submit', 'tool', 'permission', 'tool', 'turn-end',
      'prompt-submit', 'question', 'question', 'tool', 'turn-end',
      'prompt-submit', 'tool', 'subagent-start', 'subagent-stop', 'tool', 'turn-end',
      'prompt-submit', 'tool', 'permission', 'prompt-submit', 'session-end',
      'session-start', 'prompt-submit', 'turn-end', 'session-end',
    ]);
  });
  it('carries the conversation id, source and background counts', () => {
    const f = mapHookPayload('claude', hooks[0]);
    expect(f).toMatchObject({ kind: 'session-start', source: 'startup', conversationId: 'd7704408-5d9f-428b-a660-916b7b8d7ddc', event: 'SessionStart' });
    const stop = mapHookPayload('claude', { hook_event_name: 'Stop', session_id: 's', background_tasks: [
      { id: '1', type: 'shell', status: 'running' }, { id: '2', type: 'subagent', status: 'running' },
      { id: '3', type: 'monitor', status: 'completed' }], session_crons: [{ id: 'c' }] });
    expect(stop).toMatchObject({ kind: 'turn-end', backgroundTasks: 1, subagentsRunning: 1 });
  });
  it('Notification permission_prompt confirms blocked; idle_prompt is idle; others ignored', () => {
    const n = lines('claude-hooks-long-waits.jsonl').find((o) => o['hook_event_name'] === 'Notification');
    expect(mapHookPayload('claude', n)?.kind).toBe('permission');
    expect(mapHookPayload('claude', { hook_event_name: 'Notification', notification_type: 'idle_prompt' })?.kind).toBe('notification-idle');
    expect(mapHookPayload('claude', { hook_event_name: 'Notification', notification_type: 'auth_success' })).toBeNull();
  });
  it('subagent events are dropped except permission requests; compaction session starts are dropped', () => {
    expect(mapHookPayload('claude', { hook_event_name: 'PreToolUse', agent_id: 'a', tool_name: 'Bash' })).toBeNull();
    expect(mapHookPayload('claude', { hook_event_name: 'Stop', agent_id: 'a' })).toBeNull();
    expect(mapHookPayload('claude', { hook_event_name: 'PermissionRequest', agent_id: 'a', tool_name: 'Bash' })).toMatchObject({ kind: 'permission', subagent: true });
    expect(mapHookPayload('claude', { hook_event_name: 'SessionStart', source: 'compact' })).toBeNull();
    expect(mapHookPayload('claude', { hook_event_name: 'UserPromptSubmit', source: 'schedule_wakeup' })).toMatchObject({ kind: 'prompt-submit', scheduled: true });
    expect(mapHookPayload('claude', { hook_event_name: 'StopFailure' })).toMatchObject({ kind: 'turn-end', error: true });
  });
});

describe('codex mapping (real payloads)', () => {
  it('hooks', () => {
    const kinds = lines('codex-hooks.jsonl').filter((o) => !('harness_mark' in o)).map((o) => mapHookPayload('codex', o)?.kind ?? null);
    expect(kinds).toEqual(['session-start', 'prompt-submit', 'tool', 'permission', 'tool', 'turn-end',
      'prompt-submit', 'tool', 'permission', 'prompt-submit', 'session-end']);
    expect(mapHookPayload('codex', { hook_event_name: 'Interrupt', session_id: 'x' })?.kind).toBe('interrupt');
  });
  it('notify: the title-generation turn is dropped, the real turn is a turn end for its thread', () => {
    const n = lines('codex-notify.jsonl').map((o) => mapHookPayload('codex', o));
    expect(n[0]).toBeNull();
    expect(n[1]).toMatchObject({ kind: 'turn-end', conversationId: '01a22b65-6df2-7030-833c-53900e4b3eb7' });
  });
});

describe('other agents', () => {
  it('opencode events', () => {
    const ev = (type: string, properties: Record<string, unknown> = {}) => mapHookPayload('opencode', { id: 'e', type, properties: { sessionID: 'ses_1', ...properties } });
    expect(ev('session.status', { status: { type: 'busy' } })?.kind).toBe('turn-start');
    expect(ev('session.status', { status: { type: 'idle' } })?.kind).toBe('turn-end');
    expect(ev('session.idle')?.kind).toBe('turn-end');
    expect(ev('permission.asked')?.kind).toBe('permission');
    expect(ev('question.asked')?.kind).toBe('question');
    expect(ev('permission.replied', { reply: 'once' })?.kind).toBe('answered');
    expect(ev('message.updated')).toBeNull();
    expect(mapHookPayload('opencode', { event: { type: 'session.created', properties: { info: { id: 'ses_c', parentID: 'ses_1' } } } })).toBeNull();
  });
  it('copilot camelCase (event name passed as a hint or inferred) and PascalCase', () => {
    expect(mapHookPayload('copilot', { sessionId: 's', prompt: 'hi' })?.kind).toBe('prompt-submit');
    expect(mapHookPayload('copilot', { sessionId: 's', stopReason: 'end_turn' })?.kind).toBe('turn-end');
    expect(mapHookPayload('copilot', { hook_event_name: 'Notification', notification_type: 'permission_prompt' })?.kind).toBe('permission');
    expect(mapHookPayload('copilot', { toolName: 'bash', toolArgs: {} }, 'permissionRequest')?.kind).toBe('tool');
    expect(mapHookPayload('copilot', { toolName: 'bash', toolArgs: {} })).toBeNull();
    expect(mapHookPayload('copilot', { hook_event_name: 'UserPromptSubmit', session_id: 's' })?.kind).toBe('prompt-submit');
  });
  it('gemini, agy, grok', () => {
    expect(mapHookPayload('gemini', { hook_event_name: 'BeforeAgent', session_id: 's' })?.kind).toBe('prompt-submit');
    expect(mapHookPayload('gemini', { hook_event_name: 'Notification', notification_type: 'ToolPermission' })?.kind).toBe('permission');
    expect(mapHookPayload('gemini', { hook_event_name: 'AfterAgent' })?.kind).toBe('turn-end');
    expect(mapHookPayload('agy', { conversationId: 'c', terminationReason: 'NO_TOOL_CALL', fullyIdle: false })).toMatchObject({ kind: 'turn-end', backgroundTasks: 1 });
    expect(mapHookPayload('agy', { conversationId: 'c' }, 'PreInvocation')?.kind).toBe('turn-start');
    expect(mapHookPayload('grok', { hookEventName: 'PreToolUse', sessionId: 'g', toolName: 'bash' })).toMatchObject({ kind: 'tool', conversationId: 'g' });
  });
  it('never throws on junk', () => {
    const junk: unknown[] = [null, undefined, 1, 'x', [], {}, { hook_event_name: 5 }, { type: {} }, { event: null }, { properties: 1, type: 'session.status' }];
    for (const a of [...HOOK_AGENTS, 'nope']) for (const j of junk) expect(() => mapHookPayload(a, j)).not.toThrow();
    expect(mapHookPayload('nope', { hook_event_name: 'Stop' })).toBeNull();
  });
});
