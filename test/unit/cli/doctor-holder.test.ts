import { describe, expect, it } from 'vitest';
import { restartsCheckFrom } from '../../../src/cli/doctor-holder.js';
import type { StartRecord } from '../../../src/supervisor/holder.js';

const s = (at: number, pid: number, ended: StartRecord['ended'] = null): StartRecord => ({ at, pid, ended });
const NOW = 10_000_000;

describe("doctor's supervisor restarts", () => {
  it('none: ok, and says tmux revives it', () => {
    const c = restartsCheckFrom([s(NOW - 5000, 1)], NOW, '/l');
    expect(c).toMatchObject({ ok: true, detail: expect.stringContaining('none in the last hour') });
    expect(c.warn).toBeUndefined();
    // a clean stop and a start after it are no crash
    expect(restartsCheckFrom([s(NOW - 9000, 1, { at: NOW - 8000, clean: true, why: 'stopped' }), s(NOW - 5000, 2)], NOW, '/l').warn).toBeUndefined();
  });

  it('a crash an hour ago or less: a warning with the last reason', () => {
    const c = restartsCheckFrom([s(NOW - 600_000, 1, { at: NOW - 500_000, clean: false, why: 'uncaught: boom' }), s(NOW - 500_000, 2), s(NOW - 100_000, 3)], NOW, '/l');
    expect(c).toMatchObject({ ok: true, warn: true });
    // pid 2 was killed without a word (pid 3 followed it)
    expect(c.detail).toMatch(/^2 in the last hour, each revived by tmux; the last: killed without a word/);
  });

  it('a crash loop: fails, says it is held back, and how to end it', () => {
    const c = restartsCheckFrom([s(NOW - 3000, 1), s(NOW - 2000, 2), s(NOW - 1000, 3), s(NOW - 10, 4)], NOW, '/l');
    expect(c.ok).toBe(false);
    expect(c.detail).toMatch(/ended 3 times in a row within 3 s of starting/);
    expect(c.fix).toMatch(/nerdr supervisor stop/);
    // the start that waited has run well for a while since: a warning, no failure
    const later = restartsCheckFrom([s(NOW - 30_000, 1), s(NOW - 29_000, 2), s(NOW - 28_000, 3), { ...s(NOW - 27_000, 4), ready: NOW - 25_000 }], NOW, '/l');
    expect(later).toMatchObject({ ok: true, warn: true });
  });
});
