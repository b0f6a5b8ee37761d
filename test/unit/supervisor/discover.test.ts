import { describe, expect, it } from 'vitest';
import { LIST_PANES_FORMAT, paneListRow, parsePaneList } from '../../../src/supervisor/discover.js';

// The values of one pane row, in LIST_PANES_FORMAT's order.
const row = (over: { session?: string; cwd?: string; note?: string; name?: string; pane?: string; worktree?: string; branch?: string; lineage?: string; idleAfter?: string; dead?: string; status?: string; guard?: string; hibernated?: string; typed?: string } = {}) =>
  paneListRow([
    over.pane ?? '%1', '@1', over.session ?? 'user', 'a1', over.dead ?? '0', over.status ?? '', '120', '40', 'claude', 'hash', over.cwd ?? '/w',
    '["claude"]', '2', '$1', '4242', '', '[]', over.note ?? '', over.worktree ?? '', over.branch ?? '', over.worktree ? 'main' : '', over.lineage ?? '', over.idleAfter ?? '', over.name ?? 'claude', over.hibernated ?? '', over.typed ?? '', over.guard ?? '',
  ]);

describe('parsePaneList', () => {
  it('the format asks for every field tmux prints in a row', () => {
    expect(LIST_PANES_FORMAT.split('#{').length - 1).toBe(27);
  });

  it("a dead pane's status: tmux's, else the exit guard's (tmux 3.3 may have none); a live pane has none", () => {
    expect(parsePaneList(row({ dead: '1', status: '0', guard: '0' }))[0]!.deadStatus).toBe('0');
    expect(parsePaneList(row({ dead: '1', status: '', guard: '3' }))[0]!.deadStatus).toBe('3');
    expect(parsePaneList(row({ dead: '1', status: '', guard: '' }))[0]!.deadStatus).toBe('');
    expect(parsePaneList(row({ dead: '0', status: '', guard: '3' }))[0]!).toMatchObject({ dead: false, deadStatus: '' });
  });

  it("a hibernated window's record comes as tmux keeps it; none: ''", () => {
    expect(parsePaneList(row({ hibernated: '{"since":1,"conversationId":"c","screen":"/s","rssKb":9}' }))[0]!.hibernated).toBe('{"since":1,"conversationId":"c","screen":"/s","rssKb":9}');
    expect(parsePaneList(row())[0]!.hibernated).toBe('');
  });

  it("the last queued message whose paste tmux ran in the pane; none: ''", () => {
    expect(parsePaneList(row({ typed: '4f5db29b4fd2' }))[0]!.typed).toBe('4f5db29b4fd2');
    expect(parsePaneList(row())[0]!.typed).toBe('');
  });

  it('the agent windows that started a window, nearest first; none when a person did', () => {
    expect(parsePaneList(row({ lineage: 'a2 a1' }))[0]!.lineage).toEqual(['a2', 'a1']);
    expect(parsePaneList(row())[0]!.lineage).toEqual([]);
  });

  it("a --cmd window's quiet rule wait, in ms (0: off); unset or unreadable: the default (null)", () => {
    expect(parsePaneList(row({ idleAfter: '5000' }))[0]!.idleAfterMs).toBe(5000);
    expect(parsePaneList(row({ idleAfter: '0' }))[0]!.idleAfterMs).toBe(0);
    expect(parsePaneList(row())[0]!.idleAfterMs).toBeNull();
    expect(parsePaneList(row({ idleAfter: '3s' }))[0]!.idleAfterMs).toBeNull();
  });

  it('a folder with tabs and line breaks, and a note with a line break, do not shift the fields', () => {
    const text = row({ cwd: '/tmp/a\tb\nc', note: 'one\ntwo\tthree', name: 'x\ty' }) + row({ pane: '%2', session: '_nerdr' });
    const [p, q] = parsePaneList(text);
    expect(p).toMatchObject({ paneId: '%1', cwd: '/tmp/a\tb\nc', note: 'one\ntwo\tthree', name: 'x\ty', width: 120, height: 40, panePid: 4242 });
    expect(p!.links).toEqual([{ session: 'user', sessionId: '$1', index: 2 }]);
    expect(q).toMatchObject({ paneId: '%2', inHidden: true });
  });

  it('a worktree, branch and base holding tabs, line breaks and format text come through literally', () => {
    const [p] = parsePaneList(row({ worktree: '/r.worktrees/a#{b}\tc\nd', branch: "a#{b};'c\"$(x)" }));
    expect(p).toMatchObject({ worktree: '/r.worktrees/a#{b}\tc\nd', branch: "a#{b};'c\"$(x)", base: 'main' });
    const [q] = parsePaneList(row());
    expect(q).toMatchObject({ worktree: '', branch: '', base: '' });
  });

  it('links of one pane in several sessions are gathered; rows of other panes are skipped', () => {
    const text = row() + row({ session: 'other' }) + 'some unrelated line\n';
    const found = parsePaneList(text);
    expect(found).toHaveLength(1);
    expect(found[0]!.links.map((l) => l.session)).toEqual(['user', 'other']);
  });

  it('a row with fields missing is skipped, not misread', () => {
    const whole = row();
    expect(parsePaneList(whole.slice(0, whole.lastIndexOf('claude') - 3))).toEqual([]);
  });
});
