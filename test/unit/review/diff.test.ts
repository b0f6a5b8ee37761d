import { describe, expect, it } from 'vitest';
import { compactRows, fileRows, parseDiff, rowForLine, tagRow } from '../../../src/review/diff.js';

const DIFF = `diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
@@ -10,2 +10,3 @@ fn()
 ten
+eleven
 twelve
\\ No newline at end of file
`;

describe('parseDiff', () => {
  it('gives each row its kind and the new file line it shows', () => {
    const rows = parseDiff(DIFF);
    expect(rows.map((r) => r.kind)).toEqual(['meta', 'meta', 'meta', 'meta', 'hunk', 'context', 'del', 'add', 'context', 'hunk', 'context', 'add', 'context', 'note']);
    expect(rows.map((r) => r.line)).toEqual([null, null, null, null, 1, 1, 2, 2, 3, 10, 10, 11, 12, null]);
  });

  it('turns tabs into spaces and starts over at the next file header', () => {
    const rows = parseDiff('@@ -1 +1 @@\n+\tx\ndiff --git a/b b/b\n@@ -4 +4 @@\n-y\n');
    expect(rows[1]!.text).toBe('+    x');
    expect(rows[2]).toEqual({ kind: 'meta', text: 'diff --git a/b b/b', line: null });
    expect(rows[3]!.line).toBe(4);
  });

  it('reads an empty diff as no rows', () => {
    expect(parseDiff('')).toEqual([]);
  });
});

describe('rowForLine', () => {
  const rows = parseDiff(DIFF);
  it('finds the row showing the line, not the removed one at the same place', () => {
    expect(rows[rowForLine(rows, 2)]!.text).toBe('+TWO');
    expect(rows[rowForLine(rows, 11)]!.text).toBe('+eleven');
  });
  it('points at the next hunk for a line between hunks, and at the last row past the end', () => {
    expect(rows[rowForLine(rows, 5)]!.kind).toBe('hunk');
    expect(rows[rowForLine(rows, 5)]!.line).toBe(10);
    expect(rows[rowForLine(rows, 99)]!.text).toBe(' twelve');
  });
  it('is -1 without rows', () => {
    expect(rowForLine([], 3)).toBe(-1);
  });
});

describe('tagRow and compactRows', () => {
  it('colours by kind and escapes braces in the text', () => {
    expect(tagRow({ kind: 'add', text: '+{x}', line: 1 })).toBe('{green-fg}+{open}x{close}{/green-fg}');
    expect(tagRow({ kind: 'del', text: '-y', line: 1 })).toBe('{red-fg}-y{/red-fg}');
    expect(tagRow({ kind: 'context', text: '', line: 1 }, true)).toBe('{inverse} {/inverse}');
  });
  it('drops the headers a narrow pane has no room for, keeps modes', () => {
    const rows = compactRows(parseDiff('diff --git a/n b/n\nnew file mode 100644\nindex 0000000..1\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+n\n'));
    expect(rows.map((r) => r.text)).toEqual(['new file mode 100644', '@@ -0,0 +1 @@', '+n']);
  });
  it('shows a file with line numbers when there is no diff', () => {
    const rows = fileRows('a\nb\n', 'f.txt');
    expect(rows.map((r) => r.text)).toEqual(['f.txt (no change to show: the file as it is)', '1 a', '2 b']);
    expect(rows[rowForLine(rows, 2)]!.text).toBe('2 b');
  });
});
