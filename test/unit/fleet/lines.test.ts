// A remote's stdout cut into lines with a cap (issue 26 "Bounded reads"): a remote that printed
// a line and then 200 MB without a newline took the supervisor from 74 to 306 MB under readline.

import { describe, expect, it } from 'vitest';
import { LineSplitter, MAX_LINE_BYTES } from '../../../src/fleet/lines.js';
import { spawnSsh } from '../../../src/fleet/fleet.js';

function rig(max?: number) {
  const lines: string[] = [];
  const over: number[] = [];
  const s = new LineSplitter((l) => lines.push(l), (m) => over.push(m), max);
  return { s, lines, over };
}

describe('the line splitter', () => {
  it('cuts lines across chunks, as readline does: CRLF, a multi-byte character split in two, a last line without its newline', () => {
    const r = rig();
    const text = Buffer.from('{"a":1}\r\nwelcome ✋ here\n\nlast');
    const cut = text.indexOf(Buffer.from('✋')) + 1; // inside the character
    r.s.push(text.subarray(0, 3));
    r.s.push(text.subarray(3, cut));
    r.s.push(text.subarray(cut));
    r.s.end();
    expect(r.lines).toEqual(['{"a":1}', 'welcome ✋ here', '', 'last']);
    expect(r.over).toEqual([]);
  });

  it('a line of exactly the cap passes; one byte more ends the splitter, and nothing after it is read', () => {
    const r = rig(10);
    r.s.push(Buffer.from('0123456789\n01234'));
    r.s.push(Buffer.from('56789'));
    r.s.push(Buffer.from('X'));
    expect(r.over).toEqual([10]);
    expect(r.s.over).toBe(true);
    r.s.push(Buffer.from('\nok\n'));
    r.s.end();
    expect(r.lines).toEqual(['0123456789']);
    expect(r.over).toEqual([10]);
  });

  it('a line then MAX_LINE_BYTES+ without a newline, in 64 KiB chunks: overflow once, with at most the cap held', () => {
    const r = rig();
    r.s.push(Buffer.from('{"type":"resync","at":1,"agents":[]}\n'));
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    let pushed = 0;
    while (r.over.length === 0 && pushed < 2 * MAX_LINE_BYTES) {
      r.s.push(chunk);
      pushed += chunk.length;
    }
    expect(r.lines).toHaveLength(1);
    expect(r.over).toEqual([MAX_LINE_BYTES]);
    expect(pushed).toBeLessThanOrEqual(MAX_LINE_BYTES + chunk.length);
  });
});

describe('spawnSsh', () => {
  it('kills a remote that sends a line over the cap and says so in its exit', async () => {
    // a "remote" that prints one line, then more than the cap without a newline, then waits
    const p = spawnSsh(['sh', '-c', `printf 'first\\n'; head -c ${MAX_LINE_BYTES + 1024 * 1024} /dev/zero; exec cat`]);
    const lines: string[] = [];
    p.onLine((l) => lines.push(l));
    const exit = await new Promise<{ code: number | null; signal: string | null; lineOver: number | null | undefined }>((resolve) => p.onExit((code, signal, _stderr, lineOver) => resolve({ code, signal, lineOver })));
    expect(lines).toEqual(['first']);
    expect(exit.lineOver).toBe(MAX_LINE_BYTES);
    expect(exit.signal).toBe('SIGTERM');
  });

  it('a remote that ends normally: every line, the last without its newline, and no overflow', async () => {
    const p = spawnSsh(['sh', '-c', `printf 'a\\nb\\nc'; exit 3`]);
    const lines: string[] = [];
    p.onLine((l) => lines.push(l));
    const exit = await new Promise<{ code: number | null; lineOver: number | null | undefined }>((resolve) => p.onExit((code, _s, _e, lineOver) => resolve({ code, lineOver })));
    expect(lines).toEqual(['a', 'b', 'c']);
    expect(exit).toEqual({ code: 3, lineOver: null });
  });
});
