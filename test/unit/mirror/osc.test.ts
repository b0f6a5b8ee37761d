import { describe, expect, it } from 'vitest';
import { OscScanner, sanitizeOscText } from '../../../src/mirror/osc.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Feed `data` split at every possible pair of cut points (or byte by byte). */
function feedSplit(sc: OscScanner, data: Buffer, cuts: number[]): void {
  let prev = 0;
  for (const c of [...cuts, data.length]) {
    sc.feed(data.subarray(prev, c));
    prev = c;
  }
}

describe('OscScanner', () => {
  it('records OSC 0 and 2 titles with BEL and ESC \\ terminators', () => {
    const sc = new OscScanner();
    sc.feed(b('text \x1b]0;hello\x07 more'));
    expect(sc.title).toBe('hello');
    sc.feed(b('\x1b]2;✳ Claude Code\x1b\\'));
    expect(sc.title).toBe('✳ Claude Code');
    sc.feed(b('\x1b]1;icon\x07'));
    expect(sc.title).toBe('✳ Claude Code');
  });

  it('records OSC 9 progress after "9;"', () => {
    const sc = new OscScanner();
    sc.feed(b('\x1b]9;4;3;\x07'));
    expect(sc.progress).toBe('4;3;');
    sc.feed(b('\x1b]9;4;1;-1\x1b\\'));
    expect(sc.progress).toBe('4;1;-1');
    sc.feed(b('\x1b]9;9;/home/x\x07'));
    expect(sc.progress).toBe('9;/home/x');
    expect(sc.title).toBe('');
  });

  it('handles every split of a sequence across writes', () => {
    const seq = b('ab\x1b]2;⠋ Working 中\x1b\\cd\x1b]9;4;0;0\x07e');
    for (let i = 0; i <= seq.length; i++) {
      for (let j = i; j <= seq.length; j++) {
        const sc = new OscScanner();
        feedSplit(sc, seq, [i, j]);
        expect(sc.title).toBe('⠋ Working 中');
        expect(sc.progress).toBe('4;0;0');
      }
    }
    const sc = new OscScanner();
    for (const byte of seq) sc.feed(Buffer.from([byte]));
    expect(sc.title).toBe('⠋ Working 中');
  });

  it('clears the title on an empty payload but ignores an OSC without ";"', () => {
    const sc = new OscScanner();
    sc.feed(b('\x1b]0;x\x07'));
    sc.feed(b('\x1b]0\x07'));
    expect(sc.title).toBe('x');
    sc.feed(b('\x1b]2;\x07'));
    expect(sc.title).toBe('');
    sc.feed(b('\x1b]2;\x01\x02\x07')); // empty after sanitising
    expect(sc.title).toBe('');
  });

  it('ignores other idents (including 10, 02, 90)', () => {
    const sc = new OscScanner();
    sc.feed(b('\x1b]10;rgb:0/0/0\x07\x1b]02;x\x07\x1b]90;y\x07\x1b]52;c;AAAA\x07'));
    expect(sc.title).toBe('');
    expect(sc.progress).toBe('');
  });

  it('sanitises: invalid UTF-8 → U+FFFD, control characters removed, 256 characters, not trimmed', () => {
    const sc = new OscScanner();
    sc.feed(Buffer.concat([b('\x1b]2; a'), Buffer.from([0xff]), b('b\x01\x7fc '), Buffer.from([0xc2, 0x85]), b('\x07')]));
    expect(sc.title).toBe(' a\uFFFDbc ');
    sc.feed(b(`\x1b]0;${'é'.repeat(300)}\x07`));
    expect(sc.title).toBe('é'.repeat(256));
    sc.feed(b(`\x1b]0;${'🎉'.repeat(300)}\x07`));
    expect([...sc.title]).toHaveLength(256);
    expect(sanitizeOscText(b('x\ty\nz'))).toBe('xyz');
  });

  it('discards a body longer than 4096 bytes but keeps one of exactly 4096', () => {
    const sc = new OscScanner();
    sc.feed(b('\x1b]0;keep\x07'));
    sc.feed(b(`\x1b]0;${'x'.repeat(5000)}\x07`));
    expect(sc.title).toBe('keep');
    sc.feed(b(`\x1b]0;${'y'.repeat(4094)}\x07`)); // "0;" + 4094 = 4096 bytes
    expect(sc.title).toBe('y'.repeat(256));
    // and the scanner is still in sync afterwards
    sc.feed(b(`\x1b]0;${'x'.repeat(5000)}`));
    sc.feed(b(`${'x'.repeat(5000)}\x1b\\\x1b]2;next\x07`));
    expect(sc.title).toBe('next');
  });

  it('is cancelled by CAN/SUB and ended by any ESC', () => {
    const sc = new OscScanner();
    sc.feed(b('\x1b]2;one\x07\x1b]2;two\x18\x1b]2;three\x1a'));
    expect(sc.title).toBe('one');
    sc.feed(b('\x1b]2;four\x1b[31m'));
    expect(sc.title).toBe('four');
    sc.feed(b('\x1b]2;five\x1b\x1b]2;six\x07'));
    expect(sc.title).toBe('six');
  });

  it('does not see OSC in plain text or other sequences', () => {
    const sc = new OscScanner();
    sc.feed(b(']0;nope\x07 \x1b[0;2m \x1bP0;x\x1b\\'));
    expect(sc.title).toBe('');
  });

  it('resetParser drops a half-seen sequence; clear forgets values', () => {
    const sc = new OscScanner();
    sc.feed(b('\x1b]2;old'));
    sc.resetParser();
    sc.feed(b('stale\x07'));
    expect(sc.title).toBe('');
    sc.feed(b('\x1b]2;t\x07\x1b]9;p\x07'));
    sc.clear();
    expect([sc.title, sc.progress]).toEqual(['', '']);
  });
});
