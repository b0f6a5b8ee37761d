// A starting supervisor (src/supervisor/supervisor.ts, connect()) is ready once it knows the
// windows and has painted their lights from what the last one kept; their screens are read right
// after (a read waits for them: methods/read.test.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { settle, startRig, words, type Rig } from './harness.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('a supervisor starting with windows', () => {
  it('marks itself ready in tmux before it takes their screens, and takes each right after', async () => {
    rig = await startRig((t) => {
      t.addPane({ screen: ['one'] });
      t.addPane({ screen: ['two'] });
    });
    const lines = rig.tmux.lines.map((l) => l.join(' ; '));
    const ready = lines.findIndex((l) => l.includes('@nerdr_supervisor_pid'));
    const captures = lines.flatMap((l, k) => (l.includes('capture-pane') ? [k] : []));
    expect(ready).toBeGreaterThanOrEqual(0);
    expect(captures).toHaveLength(2);
    expect(Math.min(...captures)).toBeGreaterThan(ready);
    expect(rig.sup.ready).toBe(true);
    expect(rig.sup.agents.get('%1')!.mirror?.renderText()).toMatch(/^one\n/);
    expect(rig.sup.agents.get('%2')!.mirror?.renderText()).toMatch(/^two\n/);
  });
});

describe('a supervisor stopping', () => {
  it('holds no subscription when its control client detaches (tmux 3.2a and 3.3a segfault on one)', async () => {
    rig = await startRig((t) => t.addPane({ screen: ['one'] }));
    // one more, as the herdr uplink adds it inside herdr
    await rig.sup.run("refresh-client -B 'nerdr-f::#{@nerdr_focus_n}'");
    const channel = rig.channel();
    await rig.sup.stop();
    expect(channel.closedAt).not.toBeNull();
    const lines = rig.tmux.lines.slice(0, channel.closedAt!);
    const made = new Set(lines.flat().flatMap((c) => subscriptionArgs(c).filter((b) => b.includes(':')).map((b) => b.split(':')[0]!)));
    expect([...made]).toEqual(expect.arrayContaining(['nerdr-p@1', 'nerdr-f']));
    // first on its line: a command that fails ends the rest of a tmux command line
    const line = lines.findLast((l) => l.some((c) => c.startsWith('refresh-client')))!;
    expect(line[0]).toMatch(/^refresh-client/);
    const removed = subscriptionArgs(line[0]!);
    for (const name of made) expect(removed, `${name} removed before the detach`).toContain(name);
  });
});

describe('the panes\' subscriptions', () => {
  /** The `-B` arguments of every refresh-client sent since line `from`. */
  const sentSubs = (from = 0): string[] => rig!.tmux.lines.slice(from).flat().flatMap(subscriptionArgs);

  it("one for each window with a watched pane, never every pane's (`%*`, which crashes tmux 3.2a and 3.3a when the client's session goes); dropped with its window, made again on a new client", async () => {
    rig = await startRig((t) => {
      t.addPane({ screen: ['one'] });
      t.addPane({ screen: ['two'] });
    });
    const spec = (w: string) => `nerdr-p${w}:${w}:#{P:#{pane_id}|#{pane_dead}|#{pane_dead_status}|#{pane_in_mode}|#{@nerdr_exit_status}|#{q:pane_current_command} }`;
    expect(sentSubs()).toEqual(expect.arrayContaining([spec('@1'), spec('@2')]));
    expect(sentSubs().filter((b) => b.includes(':%*:') || b.includes(':@*:'))).toEqual([]);

    // a window that closes: its subscription goes with it, once
    let from = rig.tmux.lines.length;
    rig.tmux.panes.delete('%2');
    rig.channel().notify('window-close', '@2');
    await rig.wait(100);
    expect(rig.sup.agents.has('%2')).toBe(false);
    expect(sentSubs(from)).toEqual(['nerdr-p@2']);

    // a new window: its own, and the one still watched is not made twice
    from = rig.tmux.lines.length;
    rig.tmux.addPane({ screen: ['three'] });
    rig.channel().notify('window-add', '@3');
    await rig.wait(100);
    expect(sentSubs(from)).toEqual([spec('@3')]);

    // a control client lost and a new one attached: subscriptions were the old client's
    from = rig.tmux.lines.length;
    rig.channel().kill();
    await rig.wait(500);
    expect(rig.sup.stopCause).toBeNull();
    expect(sentSubs(from)).toEqual(expect.arrayContaining([spec('@1'), spec('@3')]));
    expect(sentSubs(from).filter((b) => b.startsWith('nerdr-p'))).toHaveLength(2);

    // a pane's change reaches its window, once: tmux sends the window's panes together
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $0 @1 0 - : %1|0||1||demo ');
    await settle();
    expect(rig.sup.agents.get('%1')!.inMode).toBe(true);
    const changed = vi.spyOn(rig.sup.agents.get('%1')!, 'paneChanged');
    // another pane of the window changed (a split of the user's): %1's entry is as it was
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $0 @1 0 - : %1|0||1||demo %9|0||0||sh ');
    await settle();
    expect(changed).not.toHaveBeenCalled();
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $0 @1 0 - : %1|1|2|1||demo %9|0||0||sh ');
    await settle();
    expect(changed).toHaveBeenCalledTimes(1);
    expect(changed).toHaveBeenCalledWith(true, '2', true, 'demo');
  });

  it("the client's other subscriptions go on _nerdr's own window, never on its session (`NAME::`), and again when that window is made again", async () => {
    const anchored: string[] = [];
    rig = await startRig(undefined, {
      before: (sup) => void sup.on('anchored', (w) => anchored.push(w)),
    });
    expect(anchored).toEqual(['@0']);
    expect(sentSubs().filter((b) => /^[^:]*::/.test(b))).toEqual([]);
    // closed by hand and made again
    rig.tmux.home = '@9';
    rig.channel().notify('window-close', '@0');
    await rig.wait(100);
    expect(anchored).toEqual(['@0', '@9']);
    expect(rig.sup.homeWindow).toBe('@9');
    // another window's close is no reason to look again
    rig.channel().notify('window-close', '@5');
    await rig.wait(100);
    expect(anchored).toEqual(['@0', '@9']);
  });
});

/** The `-B` arguments of a refresh-client command as the supervisor quotes it. */
function subscriptionArgs(cmd: string): string[] {
  if (!/^refresh-client /.test(cmd)) return [];
  const w = words(cmd);
  return w.flatMap((x, i) => (x === '-B' && w[i + 1] !== undefined ? [w[i + 1]!] : []));
}
