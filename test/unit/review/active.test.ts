import { describe, expect, it } from 'vitest';
import { ActiveWindows, LIST_ACTIVE, activeRow, parseActive, type ActiveWindow } from '../../../src/supervisor/active.js';

const row = (session: string, name: string, window: string, cwd = '/w', worktree = ''): string => activeRow([session, name, window, 'win', '%1', cwd, worktree, '', '']);

describe('parseActive', () => {
  it("reads each session's window, leaves out nerdr's hidden session, keeps odd folders whole", () => {
    const list = parseActive(row('$0', '_nerdr', '@1') + row('$1', 'work', '@2', '/a\tb\nc', '/wt') + row('$2', 'x', ''));
    expect(list).toEqual([{ session: '$1', sessionName: 'work', window: '@2', windowName: 'win', pane: '%1', paneCwd: '/a\tb\nc', worktree: '/wt', branch: null, base: null }]);
  });
  it('skips rows with the wrong number of fields', () => {
    expect(parseActive('garbage\n' + activeRow(['$1', 'w']))).toEqual([]);
  });
});

describe('ActiveWindows', () => {
  function tracker(replies: string[]) {
    const sent: string[] = [];
    const changes: ActiveWindow[][] = [];
    const a = new ActiveWindows({
      run: async (cmd) => {
        sent.push(cmd);
        return replies.shift() ?? '';
      },
      changed: (l) => changes.push(l),
      log: () => undefined,
    });
    return { a, sent, changes };
  }

  it('asks tmux nothing while nobody follows', async () => {
    const { a, sent } = tracker([]);
    a.notify();
    await Promise.resolve();
    expect(sent).toEqual([]);
  });
  it('asks on follow and on each notification while followed, and reports only a change', async () => {
    const { a, sent, changes } = tracker([row('$1', 'w', '@1'), row('$1', 'w', '@1'), row('$1', 'w', '@2')]);
    expect((await a.follow()).map((w) => w.window)).toEqual(['@1']);
    a.notify();
    await a.refresh(); // joins the one under way, then asks again
    expect(sent.every((c) => c === LIST_ACTIVE)).toBe(true);
    expect(sent.length).toBe(3);
    expect(changes.map((l) => l.map((w) => w.window))).toEqual([['@1'], ['@2']]);
    a.release();
    a.notify();
    expect(sent.length).toBe(3);
  });
});
