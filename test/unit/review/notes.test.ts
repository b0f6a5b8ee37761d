import { describe, expect, it } from 'vitest';
import { selectNotes } from '../../../src/review/notes.js';

const line = (o: Record<string, unknown>): string => JSON.stringify({ time: '2025-01-01T00:00:00Z', agent: 'claude', name: 'a', window: '@3', conversation: null, cwd: '/repo', ...o });

describe('selectNotes', () => {
  it("keeps the window's lines written in its folder, in the file's order", () => {
    const text = [
      line({ text: 'one', file: 'src/a.ts', line: 4 }),
      line({ text: 'other window', window: '@4' }),
      line({ text: 'same id, another project', cwd: '/elsewhere' }),
      'not json',
      line({ text: 'two', cwd: '/repo/src' }),
      '',
    ].join('\n');
    const notes = selectNotes('step', text, '@3', '/repo');
    expect(notes.map((n) => n.text)).toEqual(['one', 'two']);
    expect(notes[0]).toMatchObject({ kind: 'step', file: '/repo/src/a.ts', line: 4 });
    expect(notes[1]).toMatchObject({ file: null, line: null });
  });
  it('ignores a line number without a file and one that is not a positive integer', () => {
    const notes = selectNotes('step', [line({ text: 'x', line: 3 }), line({ text: 'y', file: 'f', line: -1 }), line({ text: 'z', file: 'f', line: '7' })].join('\n'), '@3', '/repo');
    expect(notes.map((n) => [n.file, n.line])).toEqual([[null, null], ['/repo/f', null], ['/repo/f', null]]);
  });
});
