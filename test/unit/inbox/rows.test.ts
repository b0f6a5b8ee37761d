import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { aboveInput, inboxRows, type InboxWindow } from '../../../src/inbox/rows.js';
import { Snoozes } from '../../../src/inbox/snooze.js';
import type { AgentRow } from '../../../src/protocol/index.js';

const RULE = '─'.repeat(40);
function win(over: Partial<AgentRow>, screen: string[], queue: InboxWindow['queue'] = { messages: [], stalledAt: null }): InboxWindow {
  const row = { window: '@1', name: 'api', agent: 'claude', session: 'work', state: 'idle', stateSince: 1000, seen: null, ...over } as AgentRow;
  return { row, screen: () => ({ text: screen.join('\n'), ansi: screen.join('\n') }), dialogs: { top: null, row: null, denyKeys: ['Escape'] }, queue };
}

describe('inbox rows', () => {
  it('blocked with its dialog, done-unseen with what it said, stalled and queued messages; oldest first', () => {
    const rows = inboxRows(
      [
        win({ window: '@1', state: 'blocked', stateSince: 3000 }, ['work', RULE, 'Run ls?', '❯ 1. Yes', '  2. No']),
        win({ window: '@2', name: 'web', state: 'done', seen: false, stateSince: 2000 }, ['● All tests pass.', RULE, '❯', RULE, '? for shortcuts'], {
          messages: [{ id: 'm1', text: 'next: the docs\nand more', queuedAt: 2500, typingAt: null }],
          stalledAt: 2600,
        }),
        win({ window: '@3', name: 'seen', state: 'done', seen: true }, ['● old']),
        win({ window: '@4', name: 'idle', state: 'idle' }, ['❯']),
      ],
      () => false,
    );
    expect(rows.map((r) => [r.kind, r.window])).toEqual([['done', '@2'], ['queued', '@2'], ['stalled', '@2'], ['blocked', '@1']]);
    const [done, queued, stalled, blocked] = rows;
    expect(done!.summary).toBe('● All tests pass.');
    expect(done!.lines).toEqual(['● All tests pass.']);
    expect(queued).toMatchObject({ id: 'm1', summary: 'next: the docs', message: { id: 'm1', position: 1 } });
    expect(stalled!.summary).toContain('1 queued message wait');
    expect(blocked).toMatchObject({ kind: 'blocked', answerable: true, summary: 'Run ls?', dialog: { options: [{ n: 1 }, { n: 2 }] } });
    expect(blocked!.id).toMatch(/^p[0-9a-f]{9}$/);
  });

  it('an agent at its usage limit: its words and when it resets', () => {
    const words = "You've hit your session limit · resets 3pm (UTC)";
    const [r] = inboxRows([win({ state: 'limited', stateSince: 5000, limit: { words, resetAt: Date.UTC(2026, 11, 3, 15), resetText: '3pm (UTC)' } }, ['❯'])], () => false);
    expect(r).toMatchObject({ kind: 'limited', since: 5000, summary: words, answerable: false, lines: ['resets at 2026-12-03T15:00:00.000Z'] });
    expect(r!.id).toMatch(/^l/);
    const [u] = inboxRows([win({ state: 'limited', limit: { words: 'x\u001b[2J', resetAt: null, resetText: null } }, ['❯'])], () => false);
    expect(u).toMatchObject({ summary: 'x^[[2J', lines: ['reset time unknown'] });
  });

  it('a blocked screen nerdr cannot read: its last lines, not answerable', () => {
    const [r] = inboxRows([win({ state: 'blocked' }, ['Press y to continue'])], () => false);
    expect(r).toMatchObject({ dialog: null, answerable: false, lines: ['Press y to continue'] });
  });

  it('a message being typed in is not listed; a snoozed row is left out', () => {
    const w = win({}, ['❯'], { messages: [{ id: 'm1', text: 'a', queuedAt: 1, typingAt: 2 }, { id: 'm2', text: 'b', queuedAt: 1, typingAt: null }], stalledAt: null });
    expect(inboxRows([w], () => false).map((r) => r.id)).toEqual(['m2']);
    expect(inboxRows([w], (id) => id === 'm2')).toEqual([]);
  });

  it('a finished turn shows the screen above the input box', () => {
    expect(aboveInput(['out', RULE, '❯', RULE].join('\n'))).toBe('out');
    expect(aboveInput('no box\nhere')).toBe('no box\nhere');
  });
});

describe('snoozes', () => {
  it('hide a row until their time, survive a restart, and 0 brings it back', () => {
    let now = 1000;
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'nerdr-snooze-')), 'snoozed.json');
    const s = new Snoozes(file, () => now);
    expect(s.set('p1', 60_000)).toBe(61_000);
    expect(s.has('p1')).toBe(true);
    expect(new Snoozes(file, () => now).has('p1')).toBe(true);
    now = 61_001;
    expect(s.has('p1')).toBe(false);
    s.set('p2', 1000);
    s.set('p2', 0);
    expect(s.has('p2')).toBe(false);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({});
  });
  it('an unreadable file is said, and nothing is snoozed', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nerdr-snooze-'));
    const warned: string[] = [];
    const s = new Snoozes(dir, () => 0, (m) => warned.push(m));
    expect(s.has('x')).toBe(false);
    expect(warned[0]).toMatch(/could not be read/);
  });
});
