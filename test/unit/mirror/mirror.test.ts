import { afterEach, describe, expect, it } from 'vitest';
import { Mirror } from '../../../src/mirror/mirror.js';
import { buildSeed } from '../../../src/mirror/seed.js';
import { wcwidth } from '../../../src/mirror/wcwidth.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');
const mirrors: Mirror[] = [];
function mk(cols = 20, rows = 4): Mirror {
  const m = new Mirror(cols, rows, { scrollback: 10 });
  mirrors.push(m);
  return m;
}
afterEach(() => {
  for (const m of mirrors.splice(0)) m.dispose();
});

describe('Mirror.write / flushed', () => {
  it('snapshot rows are full width, not trimmed, built cell by cell', async () => {
    const m = mk(10, 3);
    m.write(b('ab\r\n  c'));
    await m.flushed();
    const s = m.snapshot();
    expect(s.rows).toEqual(['ab        ', '  c       ', '          ']);
    expect(s).toMatchObject({ cols: 10, height: 3, altScreen: false, cursor: { x: 3, y: 1 }, oscTitle: '', oscProgress: '' });
  });

  it('a big write is parsed later: flushed() resolves after parsing; the write callback fires too', async () => {
    const m = mk();
    let called = false;
    m.write(b(`${'x'.repeat(20_000)}\x1b[H\x1b[2Jhello`), () => (called = true));
    expect(m.isFlushed).toBe(false);
    await m.flushed();
    expect(called).toBe(true);
    expect(m.isFlushed).toBe(true);
    expect(m.snapshot().rows[0]!.trimEnd()).toBe('hello');
    await m.flushed(); // idle: resolves at once
  });

  it('a small write with nothing queued is parsed at once; its callback still comes after the caller', async () => {
    const m = mk();
    let called = false;
    m.write(b('hello'), () => (called = true));
    expect(m.isFlushed).toBe(true);
    expect(m.snapshot().rows[0]!.trimEnd()).toBe('hello');
    expect(called).toBe(false);
    await m.flushed();
    await Promise.resolve();
    expect(called).toBe(true);
  });

  it('a small write behind a big one waits its turn: the order of the bytes is kept', async () => {
    const m = mk(20, 4);
    const order: string[] = [];
    m.write(b(`${'y'.repeat(20_000)}\x1b[H\x1b[2Jbig`), () => order.push('big'));
    m.write(b('\r\nsmall'), () => order.push('small'));
    expect(m.isFlushed).toBe(false);
    await m.flushed();
    expect(order).toEqual(['big', 'small']);
    expect(m.snapshot().rows.slice(0, 2).map((r) => r.trimEnd())).toEqual(['big', 'small']);
  });

  it('reassembles UTF-8 split across writes at every byte', async () => {
    const text = b('中文 é ❯ 🎉 x');
    for (let cut = 0; cut <= text.length; cut++) {
      const m = mk(30, 2);
      m.write(text.subarray(0, cut));
      m.write(text.subarray(cut));
      await m.flushed();
      expect(m.snapshot().rows[0]!.trimEnd()).toBe('中文 é ❯ 🎉 x');
    }
  });

  it('escape sequences split across writes', async () => {
    const m = mk();
    for (const part of ['\x1b', '[', '3', '1', 'm', 'R', '\x1b[', '0mN']) m.write(b(part));
    await m.flushed();
    expect(m.snapshot().rows[0]!.trimEnd()).toBe('RN');
    expect(m.renderAnsi()).toBe('\x1b[0;31mR\x1b[0mN\n');
  });
});

describe('wide and combined characters', () => {
  it('skips the right half of CJK and emoji (tmux widths)', async () => {
    const m = mk(12, 2);
    m.write(b('中a🎉b✳c'));
    await m.flushed();
    const row = m.snapshot().rows[0]!;
    // 中(2) a(1) 🎉(2) b(1) ✳(1) c(1) = 8 columns → 6 characters + 4 spaces
    expect(row).toBe('中a🎉b✳c    ');
    expect(m.snapshot().cursor).toEqual({ x: 8, y: 0 });
  });

  it('keeps combining marks in their cell', async () => {
    const m = mk(10, 1);
    m.write(b('e\u0301x'));
    await m.flushed();
    expect(m.snapshot().rows[0]).toBe(`e\u0301x${' '.repeat(8)}`);
  });

  it('wraps a wide character that does not fit in the last column', async () => {
    const m = mk(5, 2);
    m.write(b('abcd中'));
    await m.flushed();
    expect(m.snapshot().rows).toEqual(['abcd ', '中   ']);
  });

  it('turns the Kitty placeholder into a space', async () => {
    const m = mk(5, 1);
    m.write(b('a\u{10EEEE}b'));
    await m.flushed();
    expect(m.snapshot().rows[0]!.startsWith('a b')).toBe(true);
  });

  it('wcwidth follows glibc for common cases', () => {
    expect([0x41, 0x4e2d, 0x1f389, 0x301, 0x200b, 0x2764, 0xfe0f, 0x2800, 0x276f, 0xa0, 0xff21].map(wcwidth)).toEqual([
      1, 2, 2, 0, 0, 1, 0, 1, 1, 1, 2,
    ]);
  });
});

describe('OSC through the mirror', () => {
  it('captures title and progress split across writes, with both terminators', async () => {
    const m = mk();
    m.write(b('x\x1b]0;⠙ Thin'));
    m.write(b('king\x1b'));
    m.write(b('\\y\x1b]9;4;1;'));
    m.write(b('-1\x07z'));
    await m.flushed();
    const s = m.snapshot();
    expect(s.oscTitle).toBe('⠙ Thinking');
    expect(s.oscProgress).toBe('4;1;-1');
    expect(s.rows[0]!.trimEnd()).toBe('xyz'); // the terminal did not print the OSC
    m.clearOsc();
    expect(m.snapshot().oscTitle).toBe('');
  });

  it('a half-received OSC in the snapshot (-P) completes in the stream; seed keeps the title', async () => {
    const m = mk(10, 2);
    m.write(b('\x1b]2;before\x07'));
    const seed = buildSeed([[b('10 2 0 0 0 0 1 1 1 0 0 0 0 0 0')], [b('hi')], [], [b('\\033]2;af')]]);
    m.seed(seed);
    expect(m.oscTitle).toBe('before');
    m.write(b('ter\x07!'));
    await m.flushed();
    expect(m.oscTitle).toBe('after');
    expect(m.snapshot().rows[0]).toBe('!i        ');
  });
});

describe('resize, fingerprint, rendering', () => {
  it('resize changes the snapshot geometry', async () => {
    const m = mk(10, 3);
    m.write(b('abc'));
    await m.flushed();
    m.resize(15, 5);
    const s = m.snapshot();
    expect([s.cols, s.height, s.rows.length, s.rows[0]!.length]).toEqual([15, 5, 5, 15]);
    expect(s.rows[0]!.trimEnd()).toBe('abc');
    m.resize(4, 2);
    expect(m.snapshot().rows.every((r) => r.length === 4)).toBe(true);
  });

  it('seed resizes to the pane size', async () => {
    const m = mk(10, 3);
    m.seed(buildSeed([[b('30 6 0 0 0 0 5 1 1 0 0 0 0 0 0')], [b('wide pane')], [], []]));
    await m.flushed();
    expect([m.cols, m.rows]).toEqual([30, 6]);
    expect(m.snapshot().rows).toHaveLength(6);
  });

  it('fingerprint changes with the text and is stable otherwise', async () => {
    const m = mk();
    const f0 = m.fingerprint();
    expect(m.fingerprint()).toBe(f0);
    m.write(b('a'));
    await m.flushed();
    const f1 = m.fingerprint();
    expect(f1).not.toBe(f0);
    m.write(b('\x1b[31m')); // attributes only: the text is unchanged
    await m.flushed();
    expect(m.fingerprint()).toBe(f1);
    m.write(b('\rb'));
    await m.flushed();
    expect(m.fingerprint()).not.toBe(f1);
  });

  it('snapshot before the parse shows the old screen, after it the new one', async () => {
    const m = mk();
    m.write(b('one'));
    await m.flushed();
    expect(m.snapshot().rows[0]!.trimEnd()).toBe('one');
    m.write(b(`\r${'z'.repeat(20_000)}\x1b[H\x1b[2Jtwo`));
    m.snapshot(); // taken before the parse: must not be cached as current
    await m.flushed();
    expect(m.snapshot().rows[0]!.trimEnd()).toBe('two');
  });

  it('alternate screen is reported', async () => {
    const m = mk();
    m.write(b('main\x1b[?1049h\x1b[Halt'));
    await m.flushed();
    expect(m.snapshot().altScreen).toBe(true);
    expect(m.snapshot().rows[0]!.trimEnd()).toBe('alt');
    m.write(b('\x1b[?1049l'));
    await m.flushed();
    expect(m.snapshot().altScreen).toBe(false);
    expect(m.snapshot().rows[0]!.trimEnd()).toBe('main');
  });

  it('renderText: trimmed rows, trailing blank lines dropped, scrollback via lines', async () => {
    const m = mk(10, 3);
    m.write(b('l1\r\nl2\r\nl3\r\nl4  \r\n'));
    await m.flushed();
    expect(m.renderText()).toBe('l3\nl4\n');
    expect(m.renderText(5)).toBe('l1\nl2\nl3\nl4\n');
    expect(m.renderText(100)).toBe('l1\nl2\nl3\nl4\n');
    expect(mk().renderText()).toBe('');
  });

  it('renderAnsi reproduces palette, bright, 256 and RGB colours and attributes', async () => {
    const m = mk(40, 2);
    m.write(b('\x1b[1;32mA\x1b[0;94mB\x1b[38;5;200;48;2;1;2;3mC\x1b[0;7mD\x1b[0m E\x1b[44m  \x1b[0m'));
    await m.flushed();
    expect(m.renderAnsi()).toBe(
      '\x1b[0;1;32mA\x1b[0;94mB\x1b[0;38;5;200;48;2;1;2;3mC\x1b[0;7mD\x1b[0m E\x1b[0;44m  \x1b[0m\n',
    );
    expect(m.renderText()).toBe('ABCD E\n');
  });
});

describe('incremental rows: only the rows xterm says changed are rendered again', () => {
  /** A small deterministic PRNG (mulberry32), so a failing seed can be replayed. */
  function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const CSI = '\x1b[';
  /** One random piece of terminal output: text, moves, erases, scrolls, line edits, screens, resets. */
  function piece(r: () => number, cols: number, rows: number): string {
    const n = (k: number): number => 1 + Math.floor(r() * k);
    const words = ['hello', '中文', '🎉', 'é', '❯ 1. Yes', '─────', 'x'.repeat(n(cols * 2)), ' '];
    switch (Math.floor(r() * 17)) {
      case 0: case 1: case 2: return words[Math.floor(r() * words.length)]!;
      case 3: return '\r\n';
      case 4: return `${CSI}${n(rows)};${n(cols)}H`;
      case 5: return `${CSI}${Math.floor(r() * 4)}J`;
      case 6: return `${CSI}${Math.floor(r() * 3)}K`;
      case 7: return `${CSI}${n(3)}L`;
      case 8: return `${CSI}${n(3)}M`;
      case 9: return `${CSI}${n(3)}S`;
      case 10: return `${CSI}${n(3)}T`;
      case 11: { const top = n(rows - 1); return `${CSI}${top};${top + n(rows - top)}r`; }
      case 12: return r() < 0.5 ? `${CSI}?1049h` : `${CSI}?1049l`;
      case 13: return r() < 0.1 ? '\x1bc' : `${CSI}r`;
      case 14: return `${CSI}${n(4)}@${CSI}${n(4)}P${CSI}${n(4)}X`;
      case 15: return '\x1b7' + `${CSI}${n(rows)};1H` + 'saved' + '\x1b8';
      default: return '\n'.repeat(n(rows + 2));
    }
  }

  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`random output (seed ${seed}): the same rows and fingerprint as rendering every row`, async () => {
      const r = prng(seed);
      const [cols, rows] = [12 + seed, 5 + (seed % 4)];
      const inc = mk(cols, rows);
      const full = new Mirror(cols, rows, { scrollback: 10, incremental: false });
      mirrors.push(full);
      for (let step = 0; step < 300; step++) {
        let out = '';
        for (let k = Math.floor(r() * 4); k >= 0; k--) out += piece(r, cols, rows);
        inc.write(b(out));
        full.write(b(out));
        if (step % 50 === 49) {
          // the pane was resized: both take the new size
          inc.resize(cols + (step % 3), rows);
          full.resize(cols + (step % 3), rows);
        }
        await Promise.all([inc.flushed(), full.flushed()]);
        const [a, c] = [inc.snapshot(), full.snapshot()];
        expect(a.rows, `seed ${seed} step ${step}: ${JSON.stringify(out)}`).toEqual(c.rows);
        expect(inc.fingerprint()).toBe(full.fingerprint());
      }
    });
  }

  it("xterm's row events and lines are reachable: the incremental path is the one in use", () => {
    expect(mk().incrementalRows).toBe(true);
    const full = new Mirror(10, 3, { incremental: false });
    mirrors.push(full);
    expect(full.incrementalRows).toBe(false);
  });

  it('a snapshot taken earlier keeps its rows when later output changes the screen', async () => {
    const m = mk(10, 3);
    m.write(b('one\r\ntwo'));
    await m.flushed();
    const before = m.snapshot();
    m.write(b('\x1b[1;1Hnew'));
    await m.flushed();
    expect(before.rows[0]!.trimEnd()).toBe('one');
    expect(m.snapshot().rows[0]!.trimEnd()).toBe('new');
  });
});
