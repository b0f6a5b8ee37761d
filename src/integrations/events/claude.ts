// Claude Code hooks (settings passed with --settings). See docs/state-rules.md for the table.
import { claudeLike } from './claude-like.js';
import type { HookFact } from './types.js';

export function mapClaude(payload: unknown, eventHint?: string): HookFact | null {
  try { return claudeLike('claude', payload, eventHint); } catch { return null; }
}
