import { describe, expect, it } from 'vitest';
import { ownNote, selectNotes } from '../../../src/review/notes.js';

const line = (o: Record<string, unknown>): string => JSON.stringify({ time: '2025-01-01T00:00:00Z', agent: 'claude', name: 'a', window: '@3', conversation: null, cwd: '/repo', ...o });

describe('selectNotes', () => {
  it("keeps the window's lines in the file's order; files relative to the folder, or absolute", () => {
    const text = [line({ text: 'one', file: 'src/a.ts', line: 4 }), line({ text: 'other window', window: '@4' }), 'not json', line({ text: 'two', file: '/abs/x.ts' }), ''].join('\n');
    const notes = selectNotes('step', text, { window: '@3' }, '/repo');
    expect(notes.map((n) => n.text)).toEqual(['one', 'two']);
    expect(notes[0]).toMatchObject({ kind: 'step', file: '/repo/src/a.ts', line: 4 });
    expect(notes[1]).toMatchObject({ file: '/abs/x.ts', line: null });
  });
  it('ignores a line number without a file and one that is not a positive integer', () => {
    const notes = selectNotes('step', [line({ text: 'x', line: 3 }), line({ text: 'y', file: 'f', line: -1 }), line({ text: 'z', file: 'f', line: '7' })].join('\n'), { window: '@3' }, '/repo');
    expect(notes.map((n) => [n.file, n.line])).toEqual([[null, null], ['/repo/f', null], ['/repo/f', null]]);
  });
});

describe('ownNote', () => {
  it("takes the window's notes and its conversation's from another window id, not an earlier window's of the same id", () => {
    const owner = { window: '@3', conversation: 'c1' };
    expect(ownNote({ window: '@3', conversation: 'c1' }, owner)).toBe(true);
    expect(ownNote({ window: '@9', conversation: 'c1' }, owner)).toBe(true); // restored: new id, same conversation
    expect(ownNote({ window: '@3', conversation: null }, owner)).toBe(true);
    expect(ownNote({ window: '@3', conversation: 'c0' }, owner)).toBe(false); // id reused by a later server
    expect(ownNote({ window: '@4', conversation: null }, owner)).toBe(false);
    expect(ownNote({ window: '@3', conversation: 'c0' }, { window: '@3' })).toBe(true);
  });
});
