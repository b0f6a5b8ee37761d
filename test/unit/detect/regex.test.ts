// Rust regex → JS translation (manifest-format.md §4): the spec's trap cases and refusals.
import { describe, expect, it } from 'vitest';
import { compileRustRegex, RegexTranslationError, rustLines, translateRustRegex } from '../../../src/detect/regex.js';

const m = (p: string, s: string): boolean => compileRustRegex(p).test(s);

describe('translation table (§4.1, §4.4)', () => {
  it('\\x{HHHH} becomes a code point, always with the u flag', () => {
    expect(m('^\\x{2733} ', '✳ Claude')).toBe(true);
    expect(m('^\\x{2733} ', 'x'.repeat(2733) + ' ')).toBe(false);
    expect(translateRustRegex('a').flags).toBe('u');
  });
  it('leading (?i) becomes the i flag with simple case folding', () => {
    expect(translateRustRegex('(?i)abc').flags).toBe('iu');
    expect(m('(?i)esc to interrupt', 'ESC TO INTERRUPT')).toBe(true);
    expect(m('(?i)k', '\u212A')).toBe(true); // Kelvin sign folds to k
    expect(m('(?i)s', 'ſ')).toBe(true);
  });
  it('several leading flags, combined or separate', () => {
    expect(m('(?i)(?m)^b$', 'a\nB\n')).toBe(true);
    expect(m('(?im)^b$', 'a\nB\n')).toBe(true);
  });
  it('\\s is Unicode White_Space: U+0085 yes, U+FEFF no', () => {
    expect(m('^a\\sb$', 'a\u0085b')).toBe(true);
    expect(m('^a\\sb$', 'a\uFEFFb')).toBe(false);
    expect(m('^a\\sb$', 'a\u00A0b')).toBe(true);
    expect(m('^a\\Sb$', 'a\uFEFFb')).toBe(true);
  });
  it('\\d is any Unicode decimal digit', () => {
    expect(m('\\(\\d+s', '(１s · esc to cancel)')).toBe(true);
    expect(m('^\\d$', '٣')).toBe(true);
    expect(m('^\\D$', '٣')).toBe(false);
  });
  it('\\w and \\b use the Unicode word class', () => {
    expect(m('^\\w+$', 'noé')).toBe(true);
    expect(m('(?i)^\\s*2\\.\\s*no\\b', '  2. noé')).toBe(false);
    expect(m('(?i)^\\s*2\\.\\s*no\\b', '  2. No')).toBe(true);
    expect(m('\\Bé', 'noé')).toBe(true);
    expect(m('^\\W$', 'é')).toBe(false);
  });
  it('. excludes only \\n; (?s) makes it match everything', () => {
    expect(m('^a.b$', 'a\rb')).toBe(true);
    expect(m('^a.b$', 'a\u2028b')).toBe(true);
    expect(m('a.b', 'a\nb')).toBe(false);
    expect(m('(?s)a.b', 'a\nb')).toBe(true);
    expect(m('(?s).+', '\n')).toBe(true);
  });
  it('^ and $ are text anchors without (?m); the region’s final \\n defeats a bare $', () => {
    expect(m('^b', 'a\nb\n')).toBe(false);
    expect(m('b$', 'a\nb\n')).toBe(false);
    expect(m('b\\n$', 'a\nb\n')).toBe(true);
  });
  it('under (?m) lines break only at \\n (not \\r, U+2028)', () => {
    expect(m('(?m)^a$', 'x\na\n')).toBe(true);
    expect(m('(?m)^a$', 'x\na\r\n')).toBe(false);
    expect(m('(?m)^b', 'a\u2028b')).toBe(false);
  });
  it('\\A and \\z anchor the whole text', () => {
    expect(m('\\A> You', '> You are in')).toBe(true);
    expect(m('\\A> You', '\n> You are in')).toBe(false);
    expect(m('end\\z', 'the end')).toBe(true);
    expect(m('end\\z', 'the end\n')).toBe(false);
  });
  it('superfluous escapes of punctuation are literal', () => {
    expect(m('\\#\\:\\ \\-', '#: -')).toBe(true);
    expect(m('\\.\\(\\)\\[\\]\\?', '.()[]?')).toBe(true);
  });
  it('keeps \\uHHHH, \\u{…}, \\xHH, \\p{…}, bounded and lazy repeats', () => {
    expect(m('\\u2800', '\u2800')).toBe(true);
    expect(m('✓[\\u{fe0e}\\u{fe0f}]?$', '✓\u{fe0f}')).toBe(true);
    expect(m('\\x41', 'A')).toBe(true);
    expect(m('^\\p{Alphabetic}+ing\\b', 'Reading')).toBe(true);
    expect(m('^a{2,3}?$', 'aa')).toBe(true);
    expect(m('^[■⬝]{4,}', '■■⬝⬝')).toBe(true);
  });
  it('classes: shorthands spliced, negated shorthands inside classes', () => {
    expect(m('^[\\d.]+$', '١.٢')).toBe(true);
    expect(m('^[^\\S\\n]+$', ' \u00A0')).toBe(true);
    expect(m('^[^\\S\\n]+$', ' \n')).toBe(false);
    expect(m('^[a\\W]$', '!')).toBe(true);
    expect(m('^[a\\W]$', 'é')).toBe(false);
    expect(m('^[]a]+$', ']a')).toBe(true);
    expect(m('^[\\x{2800}-\\x{28FF}] ', '⠋ x')).toBe(true);
  });
  it('literal ] and } outside classes, named groups', () => {
    expect(m('a]', 'a]')).toBe(true);
    expect(m('(?P<n>a)b', 'ab')).toBe(true);
  });
  it('astral literals work (u flag)', () => {
    expect(m('^[🌕🌖🌗]$', '🌖')).toBe(true);
  });
});

describe('refusals', () => {
  for (const p of ['(?x)a', 'a(?i)b', '(?i:a)', '[[:alpha:]]', '[a&&b]', '[a--b]', '\\Z', '(a', 'a)', '\\b{start}', 'a{', '\\k']) {
    it(`refuses ${p}`, () => {
      expect(() => compileRustRegex(p)).toThrow(RegexTranslationError);
    });
  }
});

describe('rustLines (str::lines)', () => {
  it('splits like Rust', () => {
    expect(rustLines('')).toEqual([]);
    expect(rustLines('a\nb\n')).toEqual(['a', 'b']);
    expect(rustLines('a\r\nb')).toEqual(['a', 'b']);
    expect(rustLines('a\rb\r')).toEqual(['a\rb\r']);
    expect(rustLines('\n')).toEqual(['']);
    expect(rustLines('a\n\n')).toEqual(['a', '']);
  });
});
