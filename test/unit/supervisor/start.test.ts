// A starting supervisor (src/supervisor/supervisor.ts, connect()) is ready once it knows the
// windows and has painted their lights from what the last one kept; their screens are read right
// after (a read waits for them: methods/read.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { startRig, type Rig } from './harness.js';

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
    const before = rig.tmux.lines.slice(0, channel.closedAt!).flat();
    const made = new Set(before.flatMap((c) => [...c.matchAll(/^refresh-client '?-B'? '?([\w-]+):/g)].map((m) => m[1]!)));
    expect([...made]).toEqual(expect.arrayContaining(['nerdr-p', 'nerdr-f']));
    // first on its line: a command that fails ends the rest of a tmux command line
    const line = rig.tmux.lines.slice(0, channel.closedAt!).findLast((l) => l.some((c) => c.startsWith('refresh-client')))!;
    expect(line[0]).toMatch(/^refresh-client/);
    const removed = [...line[0]!.matchAll(/'?-B'? '?([\w-]+)'?(?= |$)/g)].map((m) => m[1]);
    for (const name of made) expect(removed, `${name} removed before the detach`).toContain(name);
  });
});
