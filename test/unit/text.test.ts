// visible(): the one function every human-readable output passes untrusted text through.
import { describe, expect, it } from 'vitest';
import { table } from '../../src/cli/print.js';
import { reviewText } from '../../src/review/print.js';
import { fileLine } from '../../src/review/layout.js';
import { visible } from '../../src/text.js';
import { escapeTags } from '../../src/ui/theme.js';
import { dashRows, rowCells } from '../../src/ui/rows.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('visible', () => {
  it('shows C0 in caret notation, DEL as ^?, C1 as <hex>; other text as it is', () => {
    expect(visible('a\x1b]0;T\x07b')).toBe('a^[]0;T^Gb');
    expect(visible('\x00\x1f\x7f\x9b\x80')).toBe('^@^_^?<9b><80>');
    // bidirectional overrides and isolates reorder what is shown ("Trojan Source")
    expect(visible('admin\u202Etxt.exe')).toBe('admin<U+202E>txt.exe');
    expect(visible('a\u2066b\u2069c\u202Ad')).toBe('a<U+2066>b<U+2069>c<U+202A>d');
    expect(visible('tab\there')).toBe('tab^Ihere');
    expect(visible('plain ✓ é 中 {x}')).toBe('plain ✓ é 中 {x}');
  });

  it('keeps line breaks only when asked; a carriage return never stays', () => {
    expect(visible('one\ntwo\r\n')).toBe('one^Jtwo^M^J');
    expect(visible('one\ntwo\r\n', { lines: true })).toBe('one\ntwo^M\n');
  });

  it('with colour, keeps SGR sequences (and only them) for a screen read with its colours', () => {
    const screen = '\x1b[1;38;5;196mred\x1b[0m \x1b]52;c;eA==\x07 \x1b[2J\x1b[38:2:1:2:3mx\n';
    expect(visible(screen, { colour: true, lines: true })).toBe('\x1b[1;38;5;196mred\x1b[0m ^[]52;c;eA==^G ^[[2J\x1b[38:2:1:2:3mx\n');
    // an ESC [ that is no SGR, or one cut short, shows
    expect(visible('\x1b[31', { colour: true })).toBe('^[[31');
    expect(visible('\x1b[?25l', { colour: true })).toBe('^[[?25l');
  });

  it('leaves no control character in any string', () => {
    let all = '';
    for (let c = 0; c < 0xa0; c++) all += String.fromCharCode(c);
    expect(visible(all)).not.toMatch(CONTROL);
    expect(visible(all, { lines: true }).replace(/\n/g, '')).not.toMatch(CONTROL);
  });
});

describe('the outputs that use it', () => {
  it('table cells (ls, fleet ls, …), with their width counted as shown', () => {
    const t = table(['A', 'B'], [['x\x1b[2Jy', 'z'], ['w', '\x1b]52;c;eA==\x07']]);
    expect(t).not.toMatch(CONTROL);
    expect(t.split('\n')).toEqual(['A        B', 'x^[[2Jy  z', 'w        ^[]52;c;eA==^G', '']);
  });

  it('blessed text (review panel, dashboard): escapeTags shows control characters and keeps braces literal', () => {
    expect(escapeTags('{red-fg}\x1b[31m')).toBe('{open}red-fg{close}^[[31m');
  });

  it('the review panel\'s file line and the dashboard\'s row', () => {
    const line = fileLine({ path: 'a\x1b]0;T\x07.txt', from: null, kind: 'untracked', status: '?', added: 1, removed: 0 }, 40);
    expect(line).toContain('a^[]0;T^G.txt');
    expect(line).not.toMatch(CONTROL);
    const [row] = dashRows([{ id: 'i', pane: '%1', window: '@1', session: 's', windowIndex: 1, name: 'n\x1b[2J', agent: 'claude', state: 'idle', stateSince: 0, cwd: '/x\x07', title: 't\x9d', stateLabel: 'l\x1b' } as never], 0, '/home/none');
    const cells = rowCells(row!, 100);
    expect(cells).not.toMatch(CONTROL);
    expect(cells).toContain('n^[[2J');
  });

  it('review --once lines', () => {
    const text = reviewText({
      window: '@1', windowName: 'w', session: '$1', agent: null, folder: '/f\x1b', repo: '/f', gitDir: '/f/.git', problem: null, worktree: null,
      branch: 'b\x1b]0;x\x07', head: null, base: null, ahead: null, behind: null,
      files: [{ path: 'p\x1b[31m', from: null, kind: 'untracked', status: '?', added: 1, removed: 0 }],
      shared: [{ path: 'p\x1b[31m', with: ['other\x1b]0;T\x07'] }],
      steps: [{ kind: 'step', time: '', text: 's\x1b]52;c;x\x07\nmore', file: null, line: null }],
      why: [{ kind: 'why', time: '', text: 'y\x9b', file: null, line: null }],
      tookMs: 1,
    } as never);
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('p^[[31m');
    expect(text).toContain('s^[]52;c;x^G more');
  });
});
