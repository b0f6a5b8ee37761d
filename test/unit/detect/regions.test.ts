// Regions (manifest-format.md §2.3–2.5) and detection text (§2.1).
import { describe, expect, it } from 'vitest';
import { extractRegion, isHorizontalRule, parseRegion, ScreenLayout, type RegionSpec } from '../../../src/detect/regions.js';
import { rawScreenText, rowsToText, snapshotText } from '../../../src/detect/text.js';
import type { ScreenSnapshot } from '../../../src/types.js';

function region(name: string, text: string, osc: { t?: string; p?: string } = {}): string {
  const spec = parseRegion(name);
  if (typeof spec === 'string') throw new Error(spec);
  return extractRegion(spec as RegionSpec, { layout: new ScreenLayout(text), oscTitle: osc.t ?? '', oscProgress: osc.p ?? '' });
}

describe('region names', () => {
  it('accepts the loader forms and refuses the rest', () => {
    expect(parseRegion(' whole_recent ')).toEqual({ kind: 'whole_recent' });
    expect(parseRegion('bottom_lines(+2)')).toEqual({ kind: 'bottom_lines', count: 2 });
    expect(parseRegion('bottom_non_empty_lines(01)')).toEqual({ kind: 'bottom_non_empty_lines', count: 1 });
    expect(parseRegion('bottom_lines(0)')).toEqual({ kind: 'bottom_lines', count: 0 });
    expect(parseRegion('top_non_empty_lines(65535)')).toEqual({ kind: 'top_non_empty_lines', count: 65535 });
    for (const bad of ['Whole_recent', 'bottom_lines( 2)', 'bottom_lines(-1)', 'bottom_lines()', 'top_non_empty_lines(0)',
      'top_non_empty_lines(01)', 'top_non_empty_lines(+1)', 'top_non_empty_lines(65536)', 'nope', 'bottom_lines(99999999999999999999999)']) {
      expect(typeof parseRegion(bad), bad).toBe('string');
    }
  });
});

describe('counted regions', () => {
  it('spec examples', () => {
    expect(region('bottom_non_empty_lines(2)', 'marker\nold\n\nmiddle\nmarker\nnew\n')).toBe('marker\nnew\n');
    expect(region('top_non_empty_lines(2)', '\nmarker\nold\n\nmiddle\nmarker\nnew\n')).toBe('\nmarker\nold\n');
  });
  it('bottom_lines keeps blank lines, (0) is empty, too many = all', () => {
    expect(region('bottom_lines(2)', 'a\nb\n\nc\n')).toBe('\nc\n');
    expect(region('bottom_lines(0)', 'a\nb\n')).toBe('');
    expect(region('bottom_lines(9)', 'a\nb\n')).toBe('a\nb\n');
  });
  it('bottom_non_empty_lines: blank lines between count as region, fewer → topmost non-blank, none → ""', () => {
    expect(region('bottom_non_empty_lines(2)', 'x\na\n \u00A0\nb\n')).toBe('a\n \u00A0\nb\n');
    expect(region('bottom_non_empty_lines(9)', '\n\na\nb\n')).toBe('a\nb\n');
    expect(region('bottom_non_empty_lines(3)', '')).toBe('');
    expect(region('bottom_non_empty_lines(0)', 'a\n')).toBe('');
  });
  it('top_non_empty_lines: fewer → through the last non-blank', () => {
    expect(region('top_non_empty_lines(5)', 'a\n\nb\n')).toBe('a\n\nb\n');
    expect(region('top_non_empty_lines(1)', '  \n')).toBe('');
  });
});

describe('horizontal rules and the prompt box', () => {
  it('HR lines', () => {
    for (const y of ['─', '───x', '  ───  ', '──── (bypass permissions on) ─', '──']) expect(isHorizontalRule(y), y).toBe(true);
    for (const n of ['─ foo', '──x', '━━━', '═══', '---', '╭───', '']) expect(isHorizontalRule(n), n).toBe(false);
  });
  const screen = 'top\n───\nold box\n───\nabove\n────────\n❯ draft\n  more\n────────\n  footer\n';
  it('prompt_box_body / above_prompt_box / last_non_empty_above_prompt_box / after_last_horizontal_rule', () => {
    expect(region('prompt_box_body', screen)).toBe('❯ draft\n  more\n');
    expect(region('above_prompt_box', screen)).toBe('top\n───\nold box\n───\nabove\n');
    expect(region('last_non_empty_above_prompt_box', screen)).toBe('above');
    expect(region('after_last_horizontal_rule', screen)).toBe('  footer\n');
  });
  it('without a box', () => {
    const one = 'a\n  b  \n───\nc\n';
    expect(region('prompt_box_body', one)).toBe('');
    expect(region('above_prompt_box', one)).toBe(one);
    expect(region('last_non_empty_above_prompt_box', one)).toBe('c');
    expect(region('after_last_horizontal_rule', 'a\nb\n')).toBe('a\nb\n');
    expect(region('after_last_horizontal_rule', 'a\n───\n')).toBe('');
  });
});

describe('codex prompt regions', () => {
  const withCurrent = '• old\n› first\n• block\nbody\n› current\n  footer\n';
  const noCurrent = '› asked\n• answer\n';
  it('after_last_prompt_marker', () => {
    expect(region('after_last_prompt_marker', withCurrent)).toBe('  footer\n');
    expect(region('after_last_prompt_marker', noCurrent)).toBe('• answer\n');
    expect(region('after_last_prompt_marker', 'x\n')).toBe('x\n');
    expect(region('after_last_prompt_marker', ' › indented\n')).toBe(' › indented\n');
  });
  it('current prompt regions', () => {
    expect(region('before_current_prompt_marker', withCurrent)).toBe('• old\n› first\n• block\nbody\n');
    expect(region('before_current_prompt_marker', noCurrent)).toBe(noCurrent);
    expect(region('whole_recent_without_current_prompt_marker', withCurrent)).toBe('');
    expect(region('whole_recent_without_current_prompt_marker', noCurrent)).toBe(noCurrent);
    expect(region('current_prompt_block_marker', withCurrent)).toBe('• block');
    expect(region('after_current_prompt_block_marker', withCurrent)).toBe('• block\nbody\n› current\n  footer\n');
    expect(region('current_prompt_block_marker', noCurrent)).toBe('');
    expect(region('after_current_prompt_block_marker', '›\nx\n')).toBe('');
  });
});

describe('OSC regions', () => {
  it('return the OSC strings untouched', () => {
    expect(region('osc_title', 'screen\n', { t: ' ✳ Claude ' })).toBe(' ✳ Claude ');
    expect(region('osc_progress', 'screen\n', { p: '4;3;' })).toBe('4;3;');
  });
});

describe('detection text (§2.1)', () => {
  it('right-trims White_Space, keeps leading space, drops trailing blank rows, final \\n', () => {
    expect(rowsToText(['  a \u00A0', 'b\u3000', '', ' \t'])).toBe('  a\nb\n');
    expect(rowsToText(['a\uFEFF'])).toBe('a\uFEFF\n');
    expect(rowsToText(['', '  '])).toBe('');
    expect(rowsToText(['', 'a'])).toBe('\na\n');
  });
  it('raw screens: CRLF normalised, kitty placeholder is a space', () => {
    expect(rawScreenText('a\r\nb \r\n\r\n')).toBe('a\nb\n');
    expect(rawScreenText('a\u{10EEEE}b')).toBe('a b\n');
  });
  it('snapshots use the last `height` rows', () => {
    const snap: ScreenSnapshot = { rows: ['old', 'x', 'y '], oscTitle: '', oscProgress: '', altScreen: false, cursor: { x: 0, y: 0 }, cols: 80, height: 2 };
    expect(snapshotText(snap)).toBe('x\ny\n');
  });
});
