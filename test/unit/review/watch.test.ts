import { afterEach, describe, expect, it, vi } from 'vitest';
import { Debouncer, isIgnored } from '../../../src/review/watch.js';

describe('isIgnored', () => {
  const skip = new Set(['/r/dist', '/r/a/build']);
  it("leaves out .git, node_modules and the folders git ignores, with what is inside them", () => {
    expect(isIgnored('/r', '/r', skip)).toBe(false);
    expect(isIgnored('/r/.git', '/r', skip)).toBe(true);
    expect(isIgnored('/r/.git/objects/ab', '/r', skip)).toBe(true);
    expect(isIgnored('/r/sub/node_modules/x/y.js', '/r', skip)).toBe(true);
    expect(isIgnored('/r/dist/out.js', '/r', skip)).toBe(true);
    expect(isIgnored('/r/a/build', '/r', skip)).toBe(true);
    expect(isIgnored('/r/a/builder.ts', '/r', skip)).toBe(false);
    expect(isIgnored('/r/src/.gitignore', '/r', skip)).toBe(false);
  });
});

describe('Debouncer', () => {
  afterEach(() => vi.useRealTimers());
  it('calls once after a quiet spell, and at least once per maxMs while pokes keep coming', () => {
    vi.useFakeTimers();
    let calls = 0;
    const d = new Debouncer(() => calls++, 200, 1000, () => Date.now());
    d.poke();
    d.poke();
    vi.advanceTimersByTime(199);
    expect(calls).toBe(0);
    vi.advanceTimersByTime(1);
    expect(calls).toBe(1);
    // a poke every 100 ms: never quiet for 200 ms, still called by the 1000 ms cap
    for (let i = 0; i < 12; i++) {
      d.poke();
      vi.advanceTimersByTime(100);
    }
    expect(calls).toBe(2);
    d.dispose();
    vi.advanceTimersByTime(5000);
    expect(calls).toBe(2);
  });
});

describe('watchCheckout', () => {
  it("reports a changed file, a new one in a new folder, and the git dir's index, watching folders only", async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, appendFileSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { watchCheckout } = await import('../../../src/review/watch.js');
    const top = mkdtempSync(path.join(os.tmpdir(), 'nerdr-watch-'));
    const gitDir = path.join(top, '.git');
    mkdirSync(path.join(gitDir, 'objects'), { recursive: true });
    mkdirSync(path.join(top, 'src'));
    writeFileSync(path.join(top, 'src', 'a.ts'), 'a\n');
    let poke: (() => void) | null = null;
    const w = watchCheckout(top, gitDir, [], () => poke?.());
    const next = (): Promise<void> => new Promise((r) => (poke = r));
    try {
      await w.ready;
      let seen = next();
      appendFileSync(path.join(top, 'src', 'a.ts'), 'more\n');
      await seen;
      seen = next();
      mkdirSync(path.join(top, 'lib'));
      await seen;
      seen = next();
      writeFileSync(path.join(gitDir, 'index'), 'i');
      await seen;
    } finally {
      await w.close();
      rmSync(top, { recursive: true, force: true });
    }
  });
});
