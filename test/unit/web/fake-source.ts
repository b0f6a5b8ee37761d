// An inbox source for the web server's tests: rows held in memory, answers refused as the
// supervisor refuses them, and a change the test fires itself.

import type { InboxRow } from '../../../src/protocol/inbox.js';
import { SourceError, type AnswerParams, type InboxSource } from '../../../src/web/source.js';

export function blockedRow(over: Partial<InboxRow> = {}): InboxRow {
  return {
    id: 'p1',
    kind: 'blocked',
    window: '@3',
    name: 'api',
    agent: 'demo',
    session: 'work',
    since: Date.now() - 60_000,
    summary: 'Do you want to proceed?',
    dialog: {
      text: 'Bash command\n  rm -rf build/\nDo you want to proceed?',
      options: [
        { n: 1, label: 'Yes', kind: 'approve' },
        { n: 2, label: 'No, and tell me what to do differently (esc)', kind: 'deny' },
      ],
      selected: 0,
      layout: 'list',
    },
    answerable: true,
    lines: [],
    message: null,
    host: null,
    ...over,
  };
}

export interface FakeSource extends InboxSource {
  rows: InboxRow[];
  calls: [string, unknown][];
  /** Says "something changed", as the supervisor's stream does. */
  change(): void;
  following(): boolean;
  /** Makes the next inbox() fail as an unreachable supervisor. */
  away: boolean;
}

export function fakeSource(rows: InboxRow[] = [blockedRow()]): FakeSource {
  let listener: (() => void) | null = null;
  const f: FakeSource = {
    rows,
    calls: [],
    away: false,
    change: () => listener?.(),
    following: () => listener !== null,
    async inbox() {
      if (f.away) throw new SourceError('server_not_running', 'nerdr supervisor is not running', '`nerdr supervisor start` starts it');
      return f.rows;
    },
    async answer(p: AnswerParams) {
      f.calls.push(['answer', p]);
      const row = f.rows.find((r) => r.window === p.target && r.kind === 'blocked');
      if (!row) throw new SourceError('not_blocked', `${p.target} is not waiting for an answer`);
      if (row.id !== p.prompt) throw new SourceError('prompt_changed', `the prompt changed: ${p.target} now shows ${row.id}`, `answer ${row.id}`, { prompt: row.id });
      return { target: p.target, prompt: p.prompt, option: row.dialog!.options[0]!, keys: ['1'] };
    },
    async snooze(p) {
      f.calls.push(['snooze', p]);
      return { id: p.id, until: 1 };
    },
    async cancel(p) {
      f.calls.push(['cancel', p]);
      return { id: p.id };
    },
    follow(onChange) {
      listener = onChange;
      return () => {
        listener = null;
      };
    },
  };
  return f;
}
