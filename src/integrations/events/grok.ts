// Grok Build hooks: Claude's event names with camelCase fields (hookEventName, sessionId, toolName).
import { claudeLike } from './claude-like.js';
import type { HookFact } from './types.js';

export function mapGrok(payload: unknown, eventHint?: string): HookFact | null {
  try { return claudeLike('grok', payload, eventHint); } catch { return null; }
}
