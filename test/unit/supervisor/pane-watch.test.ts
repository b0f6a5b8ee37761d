import { describe, expect, it } from 'vitest';
import { parseSubscriptionChange, windowSubscriptionSpec } from '../../../src/supervisor/pane-watch.js';
import { CLIENT_VIEWS_FORMAT, parseClientViews } from '../../../src/supervisor/client-list.js';

describe("a window's subscription", () => {
  it('names its window and no other (never `%*`: docs/tmux.md), and lists its panes', () => {
    expect(windowSubscriptionSpec('@12')).toBe('nerdr-p@12:@12:#{P:#{pane_id}|#{pane_dead}|#{pane_dead_status}|#{pane_in_mode}|#{@nerdr_exit_status}|#{q:pane_current_command} }');
  });

  it("each pane's change: dead with its status, else the exit guard's; a command quoted as tmux's q: quotes it", () => {
    expect(parseSubscriptionChange('nerdr-p@1 $1 @1 1 - : %1|1|3|0|| ')).toEqual({ kind: 'panes', panes: [{ raw: '%1|1|3|0||', change: { pane: '%1', dead: true, status: '3', inMode: false, command: '' } }] });
    expect(parseSubscriptionChange('nerdr-p@1 $1 @1 1 - : %1|1||0|7| ')).toMatchObject({ panes: [{ change: { dead: true, status: '7' } }] });
    // two panes; a command with a |, spaces and a backslash of its own
    const two = parseSubscriptionChange('nerdr-p@2 $1 @2 0 - : %4|0||1|7|sh\\ -c\\ a\\|b %5|0||0||my\\\\dir\\ x ');
    expect(two).toEqual({
      kind: 'panes',
      panes: [
        { raw: '%4|0||1|7|sh\\ -c\\ a\\|b', change: { pane: '%4', dead: false, status: '', inMode: true, command: 'sh -c a|b' } },
        { raw: '%5|0||0||my\\\\dir\\ x', change: { pane: '%5', dead: false, status: '', inMode: false, command: 'my\\dir x' } },
      ],
    });
    // an entry that is not six fields is left out, not misread
    expect(parseSubscriptionChange('nerdr-p@1 $1 @1 1 - : %1|1|3 %2|0||0|| ')).toMatchObject({ panes: [{ change: { pane: '%2' } }] });
  });

  it("another subscription's value is passed on; a line without ' : ' is nothing", () => {
    expect(parseSubscriptionChange('nerdr-status $1 - - - : a : b')).toEqual({ kind: 'other', name: 'nerdr-status', value: 'a : b' });
    expect(parseSubscriptionChange('nerdr-p@1 $1 @1')).toBeNull();
    // the name is a window's only with the window after it
    expect(parseSubscriptionChange('nerdr-p $1 @1 1 %1 : 1|3|0||')).toMatchObject({ kind: 'other', name: 'nerdr-p' });
  });
});

describe('the list-clients rows a notification reads', () => {
  it('control mode, window, tty, and passthrough as each tmux prints it', () => {
    expect(CLIENT_VIEWS_FORMAT.split('\t')).toHaveLength(4);
    const rows = ['1\t@1\t/dev/pts/1\toff', '0\t@2\t/dev/pts/2\tall', '0\t@3\t/dev/pts/3\t1'];
    expect(parseClientViews(rows, true).map((c) => [c.control, c.windowId, c.paneTty, c.passthrough])).toEqual([
      [true, '@1', '/dev/pts/1', false],
      [false, '@2', '/dev/pts/2', true],
      [false, '@3', '/dev/pts/3', true],
    ]);
    // a tmux without allow-passthrough passes everything
    expect(parseClientViews(['0\t@1\t/dev/pts/1\t'], false)[0]!.passthrough).toBe(true);
  });
});
