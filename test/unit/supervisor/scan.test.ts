// A scan's list of panes (src/supervisor/supervisor.ts, scan()) is taken in order with the lines
// tmux sent after it: on a fake tmux whose answers are held back, as a real one's are when the
// supervisor reads a backlog (after a stop) in one chunk.
import { afterEach, describe, expect, it } from 'vitest';
import { startRig, settle, type Rig } from './harness.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

/** A supervisor watching one `--cmd` window, its first look done. */
async function watched(): Promise<Rig> {
  const r = await startRig((t) => void t.addPane({ agent: 'unknown', argv: ['/bin/sh', '-c', 'make'], screen: ['$ make'] }));
  await r.wait(300);
  return r;
}

describe("a scan's answer and the lines after it", () => {
  it("a pane listed alive, then said dead by a line read in the same chunk: the list is older, and does not bring it back", async () => {
    rig = await watched();
    const a = rig.sup.agents.get('%1')!;
    rig.channel().hold = true;
    // a scan runs (a window was renamed); tmux lists the pane alive
    rig.channel().notify('window-renamed', '@1 other');
    await rig.wait(40);
    expect(rig.tmux.sent('list-panes')).not.toEqual([]);
    // then the program exits: tmux's next line, after the list's answer, in the same read
    rig.tmux.pane('%1').dead = true;
    rig.tmux.pane('%1').deadStatus = '5';
    rig.channel().hold = false;
    rig.channel().release();
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $1 @1 1 - : %1|1|5|0|5| ');
    await settle();
    expect(a.dead).toBe(true);
    expect(a.deadStatus).toBe('5');
    expect(a.state).toBe('exited');
    expect(rig.logs.filter((l) => l.includes('restarted'))).toEqual([]);
  });
});

describe("a respawn's answer and the lines after it", () => {
  it('a new program that dies at once, said by a line read right after the respawn was answered: the window is dead, not restarted', async () => {
    rig = await watched();
    const a = rig.sup.agents.get('%1')!;
    // the old program exited
    rig.tmux.pane('%1').dead = true;
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $1 @1 1 - : %1|1|0|0|0| ');
    await settle();
    expect(a.dead).toBe(true);
    rig.channel().hold = true;
    const respawned = rig.sup.respawn(a, { argv: ['make'], callerEnv: {}, env: {} });
    await settle();
    // the new one fails at once: tmux's next line, after the respawn's answer, in the same read
    rig.channel().hold = false;
    rig.channel().release();
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $1 @1 1 - : %1|1|2|0|2| ');
    await respawned;
    await settle();
    expect(a.dead).toBe(true);
    expect(a.deadStatus).toBe('2');
  });
});
