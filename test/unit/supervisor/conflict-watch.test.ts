import { describe, expect, it } from 'vitest';
import type { Clock, Timer } from '../../../src/supervisor/clock.js';
import { CONFLICT_CHECK_DELAY_MS, ConflictWatch } from '../../../src/supervisor/conflict-watch.js';
import type { WorktreeRecord } from '../../../src/worktrees/registry.js';

/** A clock whose timers fire when the test moves it. */
function manualClock() {
  let t = 0;
  const timers: { at: number; fn: () => void; off: boolean }[] = [];
  const clock: Clock = {
    now: () => t,
    after(ms, fn): Timer {
      const x = { at: t + ms, fn, off: false };
      timers.push(x);
      return { cancel: () => void (x.off = true) };
    },
  };
  const advance = async (ms: number) => {
    t += ms;
    for (const x of timers.filter((y) => !y.off && y.at <= t)) {
      x.off = true;
      x.fn();
    }
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { clock, advance };
}

const rec = (name: string, repo = '/r'): WorktreeRecord => ({ name, path: `/wt/${name}`, branch: `feat/${name}`, base: 'main', repo, createdAt: '' });

describe('ConflictWatch', () => {
  it('checks a repository once, a moment after its turns end; repaints only the windows whose mark changed', async () => {
    const { clock, advance } = manualClock();
    const records = [rec('a'), rec('b'), rec('c', '/other')];
    const checked: string[][] = [];
    let result = new Map<string, string | null>([['/wt/a', 'feat/b'], ['/wt/b', 'feat/a']]);
    const changed: string[][] = [];
    const w = new ConflictWatch({
      clock,
      log: () => undefined,
      records: () => records,
      check: async (rs) => {
        checked.push(rs.map((r) => r.name));
        return result;
      },
      changed: (p) => changed.push(p),
    });
    w.turnEnded('/wt/a');
    w.turnEnded('/wt/b');
    await advance(CONFLICT_CHECK_DELAY_MS - 1);
    expect(checked).toEqual([]);
    await advance(1);
    expect(checked).toEqual([['a', 'b']]);
    expect(changed).toEqual([['/wt/a', '/wt/b']]);
    expect(w.mark('/wt/a')).toBe('feat/b');
    expect(w.mark('/wt/c')).toBeNull();
    // b's agent resolved it: only the windows whose mark changed are repainted
    result = new Map([['/wt/a', null], ['/wt/b', null]]);
    w.turnEnded('/wt/b');
    await advance(CONFLICT_CHECK_DELAY_MS);
    expect(changed.at(-1)).toEqual(['/wt/a', '/wt/b']);
    w.turnEnded('/wt/b');
    await advance(CONFLICT_CHECK_DELAY_MS);
    expect(changed).toHaveLength(2);
    // a folder that is no nerdr worktree is never checked
    w.turnEnded('/elsewhere');
    await advance(CONFLICT_CHECK_DELAY_MS);
    expect(checked).toHaveLength(3);
  });

  it('a failing check is logged and changes no mark; after dispose nothing runs', async () => {
    const { clock, advance } = manualClock();
    const logged: string[] = [];
    const w = new ConflictWatch({ clock, log: (_l, m) => logged.push(m), records: () => [rec('a')], check: async () => Promise.reject(new Error('git is gone')), changed: () => undefined });
    w.turnEnded('/wt/a');
    await advance(CONFLICT_CHECK_DELAY_MS);
    expect(logged[0]).toMatch(/cannot check the worktrees of \/r for conflicts: git is gone/);
    w.turnEnded('/wt/a');
    w.dispose();
    await advance(CONFLICT_CHECK_DELAY_MS);
    expect(logged).toHaveLength(1);
  });
});
