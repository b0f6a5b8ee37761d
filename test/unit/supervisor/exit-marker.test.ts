import { describe, expect, it } from 'vitest';
import { EXIT_MARKER } from '../../../src/supervisor/create.js';
import { ExitMarkers } from '../../../src/supervisor/exit-marker.js';

const M = Buffer.from(EXIT_MARKER, 'latin1');
const feedAll = (m: ExitMarkers, pane: string, chunks: Buffer[]) => chunks.map((c) => m.feed(pane, c));

describe('ExitMarkers', () => {
  it('finds the marker whole, amid other output', () => {
    const m = new ExitMarkers();
    expect(m.feed('%1', Buffer.concat([Buffer.from('last words\r\n\x1b[0m'), M, Buffer.from('x')]))).toBe(true);
    expect(m.feed('%1', Buffer.from('plain output'))).toBe(false);
  });

  it('finds it split at every position, and in one-byte chunks', () => {
    for (let cut = 1; cut < M.length; cut++) {
      const m = new ExitMarkers();
      expect(feedAll(m, '%1', [Buffer.concat([Buffer.from('ab'), M.subarray(0, cut)]), M.subarray(cut)])).toEqual([false, true]);
    }
    const m = new ExitMarkers();
    const got = feedAll(m, '%1', [...M].map((b) => Buffer.from([b])));
    expect(got.indexOf(true)).toBe(M.length - 1);
  });

  it('a prefix that does not go on is not a marker; each pane has its own partial match', () => {
    const m = new ExitMarkers();
    expect(m.feed('%1', M.subarray(0, 5))).toBe(false);
    expect(m.feed('%2', M.subarray(5))).toBe(false);
    expect(m.feed('%1', Buffer.from('zzzz'))).toBe(false);
    expect(m.feed('%1', M.subarray(5))).toBe(false);
    // another ESC sequence at a chunk's end is no partial marker
    expect(m.feed('%3', Buffer.from('\x1b]0;title'))).toBe(false);
    expect(m.feed('%3', M.subarray(10))).toBe(false);
    expect(m.feed('%4', M.subarray(0, 9))).toBe(false);
    m.forget('%4');
    expect(m.feed('%4', M.subarray(9))).toBe(false);
  });
});
