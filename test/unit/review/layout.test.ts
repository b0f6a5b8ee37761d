import { describe, expect, it } from 'vitest';
import { fileLine, fileList, fitEnd, fitStart, footerLines, layout, noteList, scrollTo } from '../../../src/review/layout.js';
import type { ReviewFile } from '../../../src/review/git.js';
import type { ReviewNote } from '../../../src/review/notes.js';

const file = (over: Partial<ReviewFile>): ReviewFile => ({ path: 'a.ts', from: null, kind: 'unstaged', status: 'M', added: 1, removed: 2, ...over });

describe('layout', () => {
  it('stacks header, files, notes, diff and footer with no gap and no overlap', () => {
    for (const [w, h, f, n] of [[48, 40, 5, 3], [30, 12, 20, 10], [120, 60, 0, 0], [40, 8, 3, 3], [80, 24, 100, 0]] as const) {
      const L = layout(w, h, f, n);
      expect(L.files.top).toBe(L.header.top + L.header.height);
      expect(L.notes.top).toBe(L.files.top + L.files.height);
      expect(L.diff.top).toBe(L.notes.top + L.notes.height);
      expect(L.diff.top + L.diff.height).toBe(L.footer.top);
      expect(L.footer.top + L.footer.height).toBe(h);
    }
  });
  it('gives the files their rows when there is room, and the diff the rest', () => {
    const L = layout(48, 40, 4, 2);
    expect(L.files.height).toBe(6);
    expect(L.notes.height).toBe(4);
    expect(L.diff.height).toBeGreaterThan(20);
  });
  it('caps long lists so the diff keeps most of a pane', () => {
    const L = layout(48, 40, 200, 200);
    expect(L.files.height).toBeLessThanOrEqual(14);
    expect(L.notes.height).toBeLessThanOrEqual(10);
    expect(L.diff.height).toBeGreaterThanOrEqual(12);
  });
  it('hides the notes box without notes and in a very short pane keeps 3 rows of diff', () => {
    expect(layout(80, 30, 3, 0).notes.height).toBe(0);
    const L = layout(40, 9, 5, 5);
    expect(L.diff.height).toBeGreaterThanOrEqual(3);
  });
});

describe('footer', () => {
  it('wraps the keys to the pane width, every key kept', () => {
    const wide = footerLines(200);
    expect(wide).toHaveLength(1);
    const narrow = footerLines(40);
    expect(narrow.length).toBeGreaterThan(1);
    for (const l of narrow) expect([...l].length).toBeLessThanOrEqual(40);
    expect(narrow.join(' · ').replace(/\s+/g, ' ')).toContain('e edit');
    expect(narrow.join(' ')).toContain('q quit');
  });
});

describe('list rows', () => {
  it('shortens text from either end', () => {
    expect(fitStart('src/deep/path/file.ts', 10)).toBe('…h/file.ts');
    expect(fitEnd('a long note', 6)).toBe('a lon…');
    expect(fitEnd('short', 6)).toBe('short');
  });
  it('puts the counts at the right edge and keeps the file name when the path is long', () => {
    const l = fileLine(file({ path: 'src/a/very/long/path/to/the/file.ts', added: 12, removed: 3 }), 30);
    expect([...l].length).toBe(30);
    expect(l.startsWith('M …')).toBe(true);
    expect(l.endsWith('file.ts +12 -3')).toBe(true);
    expect(fileLine(file({ added: null, removed: null }), 20).endsWith('bin')).toBe(true);
    expect(fileLine(file({ status: 'R', from: 'old.ts', path: 'new.ts' }), 40)).toContain('old.ts → new.ts');
  });
  it("a file another agent's worktree changed too: ⇄ and who, before the counts; names shown, never obeyed", () => {
    const l = fileLine(file({ path: 'README', added: 1, removed: 0 }), 40, ['feat/b', 'x\x1b]0;T\x07']);
    expect([...l].length).toBe(40);
    expect(l).toMatch(/^M README\s+⇄ feat\/b,x\^\[\]0;T\^G \+1 -0$/);
    const rows = fileList([file({ path: 'README' }), file({ path: 'other' })], 60, null, [{ path: 'README', with: ['feat/b'] }]);
    expect(rows.filter((r) => r.kind === 'item').map((r) => r.text.includes('⇄ feat/b'))).toEqual([true, false]);
  });
  it('groups files by kind under titles; items point back at their file', () => {
    const files = [file({ kind: 'staged', path: 's' }), file({ kind: 'unstaged', path: 'u' }), file({ kind: 'untracked', path: 'n', status: '?' }), file({ kind: 'committed', path: 'c' })];
    const rows = fileList(files, 40, 'main');
    expect(rows.filter((r) => r.kind === 'title').map((r) => r.text)).toEqual(['staged (1)', 'unstaged (1)', 'untracked (1)', 'committed since main (1)']);
    expect(rows.filter((r) => r.kind === 'item').map((r) => (r.kind === 'item' ? r.index : -1))).toEqual([0, 1, 2, 3]);
  });
  it('numbers the walkthrough steps with their place, then the why notes', () => {
    const note = (over: Partial<ReviewNote>): ReviewNote => ({ kind: 'step', time: 't', text: 'x', file: null, line: null, ...over });
    const rows = noteList([note({ text: 'first', file: '/r/src/a.ts', line: 3 }), note({ text: 'second\nline' })], [note({ kind: 'why', text: 'because' })], 40, '/r');
    expect(rows.map((r) => r.text)).toEqual(['walkthrough (2)', '1. src/a.ts:3 first', '2. second line', 'why (1)', '· because']);
    expect(rows.filter((r) => r.kind === 'item').map((r) => (r.kind === 'item' ? r.index : -1))).toEqual([0, 1, 2]);
  });
  it('scrolls a list just enough to show the selected row', () => {
    expect(scrollTo(0, 0, 5, 20)).toBe(0);
    expect(scrollTo(7, 0, 5, 20)).toBe(3);
    expect(scrollTo(2, 3, 5, 20)).toBe(2);
    expect(scrollTo(19, 0, 5, 20)).toBe(15);
    expect(scrollTo(3, 10, 5, 4)).toBe(0);
  });
});
