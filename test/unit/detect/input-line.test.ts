// The quiet rule's look at a screen no manifest reads: is the cursor on an input line?
import { describe, expect, it } from 'vitest';
import { cellsBefore, inputLine } from '../../../src/detect/input-line.js';
import type { ScreenSnapshot } from '../../../src/types.js';

const snap = (rows: string[], x: number, y: number, altScreen = false): ScreenSnapshot => ({
  rows, oscTitle: '', oscProgress: '', altScreen, cursor: { x, y }, cols: 80, height: rows.length,
});

describe('inputLine', () => {
  it('the cursor after a prompt (and what was typed after it) is an input line', () => {
    expect(inputLine(snap(['Python 3.12', '>>> '], 4, 1))).toEqual({ prompt: '>>>', why: 'the cursor is after text on its line (a prompt)' });
    expect(inputLine(snap(['myrepl> hel   '], 11, 0)).prompt).toBe('myrepl> hel');
  });

  it('a cursor at the start of a line, or on an empty one, is not: a program without a prompt cannot be told from one working silently', () => {
    expect(inputLine(snap(['hello', ''], 0, 1))).toEqual({ prompt: null, why: 'the cursor is on an empty line, after no prompt' });
    expect(inputLine(snap(['hello', '   text'], 2, 1))).toEqual({ prompt: null, why: 'the cursor is at the start of its line, after no prompt' });
    expect(inputLine(snap([], 0, 0)).prompt).toBeNull();
  });

  it("a full-screen program's screen (vim, less, a TUI) is never an input line", () => {
    expect(inputLine(snap(['~', '~', ':'], 1, 2, true))).toMatchObject({ prompt: null, why: expect.stringContaining('full-screen program') });
  });

  it('wide characters take two cells: the prompt is cut at the cursor cell', () => {
    expect(cellsBefore('你好> rest', 6)).toBe('你好> ');
    expect(inputLine(snap(['你好> rest'], 6, 0)).prompt).toBe('你好>');
  });

  it('a long prompt is shown by its end', () => {
    const p = inputLine(snap(['x'.repeat(60) + '> '], 62, 0)).prompt!;
    expect(p).toBe('…' + 'x'.repeat(39) + '>');
  });
});
