import { describe, expect, it } from 'vitest';
import {
  SNAPSHOT_DISPLAY_FORMAT,
  buildSeed,
  buildSnapshotCommand,
  decodeOctal,
  parseDisplayLine,
  quoteTmuxArg,
} from '../../../src/mirror/seed.js';
import { Mirror } from '../../../src/mirror/mirror.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');
const lines = (...s: string[]): Buffer[] => s.map(b);

function display(o: Partial<Record<string, number>> = {}): Buffer[] {
  const v = {
    w: 20, h: 5, cx: 0, cy: 0, alt: 0, up: 0, low: (o.h ?? 5) - 1, cur: 1, wrap: 1, ins: 0,
    kc: 0, kp: 0, org: 0, asx: 0, asy: 0, hist: 0, ...o,
  };
  return [b([v.w, v.h, v.cx, v.cy, v.alt, v.up, v.low, v.cur, v.wrap, v.ins, v.kc, v.kp, v.org, v.asx, v.asy, v.hist].join(' '))];
}

async function seeded(blocks: Buffer[][], scrollback = 0): Promise<Mirror> {
  const s = buildSeed(blocks);
  const m = new Mirror(s.cols, s.rows, { scrollback });
  m.seed(s);
  await m.flushed();
  return m;
}

describe('snapshot command', () => {
  it('quotes with single quotes and escapes inner quotes', () => {
    expect(quoteTmuxArg("a'b")).toBe(`'a'\\''b'`);
    expect(quoteTmuxArg('%3')).toBe(`'%3'`);
  });

  it('builds the five-command line for a pane', () => {
    const cmd = buildSnapshotCommand('%12');
    // every argument quoted (the control channel's one quoting function)
    expect(cmd).toBe(
      `display '-p' '-t' '%12' '${SNAPSHOT_DISPLAY_FORMAT}' ; capture-pane '-p' '-e' '-N' '-t' '%12' ; ` +
        `capture-pane '-p' '-e' '-N' '-a' '-q' '-t' '%12' ; capture-pane '-p' '-P' '-C' '-t' '%12' ; ` +
        `capture-pane '-p' '-e' '-N' '-S' '-100' '-E' '-1' '-t' '%12'`,
    );
    expect(cmd).not.toContain('\n');
    expect(SNAPSHOT_DISPLAY_FORMAT.split(' ')).toHaveLength(16);
  });
});

describe('decodeOctal', () => {
  it('decodes \\ooo escapes and passes other bytes through', () => {
    expect(decodeOctal(b('a\\033[31m\\134x\\015\\012'))).toEqual(b('a\x1b[31m\\x\r\n'));
    expect(decodeOctal(b('\\344\\270\\255'))).toEqual(b('中'));
    expect(decodeOctal(Buffer.from([0xe4, 0xb8, 0xad]))).toEqual(b('中'));
  });
  it('keeps a backslash that is not an escape', () => {
    expect(decodeOctal(b('x\\9zz\\'))).toEqual(b('x\\9zz\\'));
    expect(decodeOctal(b('\\03'))).toEqual(b('\\03'));
  });
  it('honours a start offset', () => {
    expect(decodeOctal(b('%output %1 hi\\041'), 11)).toEqual(b('hi!'));
  });
});

describe('parseDisplayLine', () => {
  it('parses all fields', () => {
    const st = parseDisplayLine('120 40 5 7 1 2 30 0 1 1 0 1 0 9 8 1234');
    expect(st).toEqual({
      width: 120, height: 40, cursorX: 5, cursorY: 7, alternateOn: true, scrollUpper: 2, scrollLower: 30,
      cursorVisible: false, wrap: true, insert: true, keypadCursor: false, keypad: true, origin: false,
      altSavedX: 9, altSavedY: 8, historySize: 1234,
    });
    // a line without the history field (an older format) counts none
    expect(parseDisplayLine('120 40 5 7 1 2 30 0 1 1 0 1 0 9 8').historySize).toBe(0);
  });
  it('rejects something else', () => {
    expect(() => parseDisplayLine('no server running')).toThrow(/not a snapshot display line/);
  });
});

describe('buildSeed → Mirror', () => {
  it('rebuilds a normal screen with colours, cursor and a partial sequence', async () => {
    const blocks = [
      display({ cx: 3, cy: 2 }),
      lines('\x1b[31mred\x1b[39m plain', '', 'abc', '', ''),
      [],
      lines('\\033[3'), // half-received ESC [ 3 …
    ];
    const s = buildSeed(blocks);
    expect(s.partial).toEqual(b('\x1b[3'));
    expect(s.seed.subarray(0, 2)).toEqual(b('\x1bc'));
    const m = new Mirror(s.cols, s.rows, { scrollback: 0 });
    m.seed(s);
    m.write(b('2mG'));
    await m.flushed();
    const snap = m.snapshot();
    expect(snap.rows.map((r) => r.trimEnd())).toEqual(['red plain', '', 'abcG', '', '']);
    expect(snap.cursor).toEqual({ x: 4, y: 2 });
    expect(snap.altScreen).toBe(false);
    expect(m.renderAnsi()).toContain('\x1b[0;31mred');
    expect(m.renderAnsi()).toContain('\x1b[0;32mG');
    m.dispose();
  });

  it('places a row filling the last column without wrapping or scrolling', async () => {
    const full = 'x'.repeat(20);
    const m = await seeded([display({ cx: 0, cy: 4 }), lines(full, full, full, full, full), [], []]);
    expect(m.snapshot().rows).toEqual([full, full, full, full, full]);
    expect(m.snapshot().cursor).toEqual({ x: 0, y: 4 });
    m.dispose();
  });

  it('handles the alternate screen: main screen restored when the app leaves it', async () => {
    const blocks = [
      display({ alt: 1, cx: 1, cy: 1, asx: 4, asy: 3, up: 1, low: 3 }),
      lines('ALT top', 'ALT mid'),
      lines('main 0', 'main 1', 'main 2', '$ cmd'),
      [],
    ];
    const m = await seeded(blocks);
    let snap = m.snapshot();
    expect(snap.altScreen).toBe(true);
    expect(snap.rows.map((r) => r.trimEnd())).toEqual(['ALT top', 'ALT mid', '', '', '']);
    expect(snap.cursor).toEqual({ x: 1, y: 1 });
    // The scroll region 2..4 (1-based) is in force: a LF at the region bottom scrolls rows 1..3 only.
    m.write(b('\x1b[4;1Hbottom\n'));
    await m.flushed();
    expect(m.snapshot().rows.map((r) => r.trimEnd())).toEqual(['ALT top', '', 'bottom', '', '']);
    m.write(b('\x1b[?1049l'));
    await m.flushed();
    snap = m.snapshot();
    expect(snap.altScreen).toBe(false);
    expect(snap.rows.map((r) => r.trimEnd())).toEqual(['main 0', 'main 1', 'main 2', '$ cmd', '']);
    expect(snap.cursor).toEqual({ x: 4, y: 3 });
    m.dispose();
  });

  it('restores modes: hidden cursor, no wrap, insert', async () => {
    const m = await seeded([display({ cur: 0, wrap: 0, ins: 1, cx: 0, cy: 0 }), lines('world'), [], []]);
    m.write(b('hello '));
    await m.flushed();
    expect(m.snapshot().rows[0]!.trimEnd()).toBe('hello world');
    // no auto-wrap: writing past the right edge overwrites the last column
    m.write(b('\x1b[2;1H' + 'y'.repeat(25)));
    await m.flushed();
    expect(m.snapshot().rows[1]).toBe('y'.repeat(20));
    expect(m.snapshot().rows[2]!.trim()).toBe('');
    m.dispose();
  });

  it('handles origin mode relative to the region', async () => {
    const m = await seeded([display({ org: 1, up: 1, low: 3, cx: 2, cy: 2 }), lines('', '', '', '', ''), [], []]);
    expect(m.snapshot().cursor).toEqual({ x: 2, y: 2 });
    m.write(b('\x1b[1;1HO')); // origin mode: row 1 is the region top
    await m.flushed();
    expect(m.snapshot().rows[1]!.trimEnd()).toBe('O');
    m.dispose();
  });

  it('asks for a new snapshot when the stream starts with a UTF-8 continuation byte', async () => {
    const m = await seeded([display(), lines('x'), [], []]);
    expect(m.write(Buffer.from([0xb8, 0xad, 0x41]))).toBe(true);
    expect(m.needsResnapshot).toBe(true);
    m.seed(buildSeed([display(), lines('中A'), [], []]));
    expect(m.needsResnapshot).toBe(false);
    expect(m.write(b('中'))).toBe(false);
    expect(m.write(Buffer.from([0xb8]))).toBe(false); // only the first bytes after a seed count
    await m.flushed();
    m.dispose();
  });

  it('puts the history above the screen into the scrollback; its codes run on across its lines, as tmux writes them, and stop before the screen', async () => {
    const full = 'h'.repeat(20);
    // tmux writes no code where a line goes on in the pen of the line before: full is bold too
    const m = await seeded([display({ cx: 2, cy: 1, hist: 3 }), lines('screen 0', '$ '), [], [], lines('\x1b[1mold 1', full, '\x1b[0mold 3')], 100);
    expect(m.snapshot().rows.map((r) => r.trimEnd())).toEqual(['screen 0', '$', '', '', '']);
    expect(m.snapshot().cursor).toEqual({ x: 2, y: 1 });
    expect(m.renderText(8).split('\n').slice(0, 5)).toEqual(['old 1', full, 'old 3', 'screen 0', '$']);
    const ansi = m.renderAnsi(8).split('\n');
    expect(ansi[1]).toContain('\x1b[0;1m');
    expect(ansi[2]).not.toContain('\x1b[0;1m');
    expect(ansi[3]).not.toContain('\x1b[0;1m');
    m.dispose();
  });

  it('a history that ends in a colour does not colour the screen', async () => {
    const m = await seeded([display({ hist: 1 }), lines('plain'), [], [], lines('\x1b[31mred')], 100);
    expect(m.renderAnsi(1)).not.toContain('31m');
    m.dispose();
  });

  it('takes no history when the display line counts none (tmux then captures the screen\'s first line)', async () => {
    const m = await seeded([display({ hist: 0 }), lines('top', 'next'), [], [], lines('top')], 100);
    expect(m.renderText(10).split('\n').filter(Boolean)).toEqual(['top', 'next']);
    m.dispose();
  });

  it('rejects a short reply', () => {
    expect(() => buildSeed([display(), [], []])).toThrow(/needs 4 blocks/);
  });
});
