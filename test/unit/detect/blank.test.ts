// A blank screen is detection's business: no rule matched and nothing is drawn → unknown, not
// the idle fallback (an agent still loading draws nothing for seconds).
import { describe, expect, it } from 'vitest';
import { detectSnapshot, FALLBACK_REASON, ManifestRegistry } from '../../../src/detect/index.js';
import type { ScreenSnapshot } from '../../../src/types.js';

const demo = new ManifestRegistry({ env: {}, extraDirs: [] }).get('demo')!;
const snap = (rows: string[]): ScreenSnapshot => ({ rows, oscTitle: '', oscProgress: '', altScreen: false, cursor: { x: 0, y: 0 }, cols: 80, height: rows.length });

describe('detectSnapshot and blank screens', () => {
  it('nothing drawn: unknown, marked blank', () => {
    const d = detectSnapshot(demo, snap(['', '   ', '']));
    expect(d).toMatchObject({ state: 'unknown', blank: true, rule: null, fallbackReason: FALLBACK_REASON });
  });

  it('text no rule matches: the idle fallback, not blank', () => {
    const d = detectSnapshot(demo, snap(['some output', '']));
    expect(d).toMatchObject({ state: 'idle', blank: false, fallbackReason: FALLBACK_REASON });
  });

  it('a rule that matches wins as always', () => {
    const d = detectSnapshot(demo, snap(['✻ Thinking… (3s · esc to interrupt)']));
    expect(d).toMatchObject({ state: 'working', blank: false, rule: 'spinner_working' });
  });
});
