// A pane that floods (src/supervisor/flood.ts): the gate's counting, and on a fake tmux the pause
// for our client, the snapshot that continues it, the calm, and the exit guard a flood can hide.
import { afterEach, describe, expect, it } from 'vitest';
import { FLOOD_AGAIN_BYTES, FLOOD_BYTES, FLOOD_CALM_MS, FLOOD_PAUSE_MS, FLOOD_WINDOW_MS, FloodGate } from '../../../src/supervisor/flood.js';
import { EXIT_MARKER_WAIT_MS } from '../../../src/supervisor/agent.js';
import { EXIT_MARKER, exitChannel } from '../../../src/supervisor/create.js';
import { expectGuardReleasedOnce, startRig, settle, words, type Rig } from './harness.js';

describe('FloodGate', () => {
  it('trips once a window of FLOOD_WINDOW_MS holds FLOOD_BYTES, and never on the same bytes spread over longer', () => {
    const g = new FloodGate();
    expect(g.feed(FLOOD_BYTES - 1, 1000)).toBe(false);
    expect(g.feed(1, 1000 + FLOOD_WINDOW_MS - 1)).toBe(true);
    const h = new FloodGate();
    // just under the limit's rate, for a second: never
    for (let t = 0; t < 1000; t += 10) expect(h.feed(Math.floor(FLOOD_BYTES / 10) - 100, t)).toBe(false);
  });

  it('a new window starts from nothing; within a flood the lower limit counts; reset forgets', () => {
    const g = new FloodGate();
    expect(g.feed(FLOOD_BYTES - 1, 0)).toBe(false);
    expect(g.feed(FLOOD_BYTES - 1, FLOOD_WINDOW_MS)).toBe(false);
    expect(g.feed(FLOOD_AGAIN_BYTES, 2 * FLOOD_WINDOW_MS, true)).toBe(true);
    expect(g.feed(FLOOD_AGAIN_BYTES - 1, 3 * FLOOD_WINDOW_MS, true)).toBe(false);
    g.reset();
    expect(g.feed(1, 3 * FLOOD_WINDOW_MS + 1, true)).toBe(false);
    expect(g.feed(FLOOD_AGAIN_BYTES - 1, 3 * FLOOD_WINDOW_MS + 2, true)).toBe(true);
  });
});

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

const CMD = { agent: 'unknown', argv: ['/bin/sh', '-c', 'make'] };
/** 64 KiB of lines. */
const BLOCK = `${'x'.repeat(62)}\r\n`.repeat(1024);

const pauses = (r: Rig): string[][] => r.tmux.sent('refresh-client').filter((w) => w.includes('%1:pause'));

/** A supervisor watching one `--cmd` window (`make`), its first look done. */
async function watchMake(): Promise<Rig> {
  const r = await startRig((t) => void t.addPane({ ...CMD, screen: ['$ make'] }));
  await r.wait(300);
  return r;
}

async function flood(r: Rig, bytes: number): Promise<void> {
  for (let n = 0; n < bytes; n += BLOCK.length) r.channel().output('%1', BLOCK);
  await settle();
}

describe('a pane that floods', () => {
  it('is paused for our client at FLOOD_BYTES within FLOOD_WINDOW_MS; nothing after is parsed; FLOOD_PAUSE_MS later one line continues it and takes its screen', async () => {
    rig = await watchMake();
    const a = rig.sup.agents.get('%1')!;
    await flood(rig, FLOOD_BYTES - BLOCK.length);
    expect(pauses(rig)).toEqual([]);
    expect(a.floodSince).toBeNull();
    await flood(rig, BLOCK.length);
    expect(pauses(rig)).toEqual([['refresh-client', '-A', '%1:pause']]);
    expect(a.outputPaused).toBe(true);
    expect(a.floodSince).toBe(rig.time.t);
    expect(rig.logs.filter((l) => l.includes('its output floods'))).toHaveLength(1);
    // what tmux had queued before it took the pause is not parsed, and its %pause is ours
    rig.channel().output('%1', '\r\nLATE-LINE');
    rig.channel().notify('pause', '%1');
    await settle();
    await a.mirror!.flushed();
    expect(a.mirror!.renderText()).not.toContain('LATE-LINE');
    expect(rig.logs.filter((l) => l.includes('fell behind'))).toEqual([]);
    // tmux's own screen meanwhile
    rig.tmux.pane('%1').screen = ['line 99998', 'line 99999', 'THE-END', '$ '];
    const continued = (): string[][] => rig!.tmux.lines.filter((l) => words(l[0]!).join(' ') === 'refresh-client -A %1:continue');
    const before = continued().length;
    await rig.wait(FLOOD_PAUSE_MS - 20);
    expect(continued()).toHaveLength(before);
    await rig.wait(30);
    expect(continued()).toHaveLength(before + 1);
    const line = continued().at(-1)!;
    expect(words(line[1]!)).toEqual(['display', '-p', '-t', '%1', '#{@nerdr_exit_status}']);
    expect(line.slice(2).map((c) => words(c)[0])).toEqual(['display', 'capture-pane', 'capture-pane', 'capture-pane', 'capture-pane']);
    await settle();
    await a.mirror!.flushed();
    expect(a.outputPaused).toBe(false);
    expect(a.mirror!.renderText().trim()).toBe('line 99998\nline 99999\nTHE-END\n$');
    // output from here on is the pane's again
    rig.channel().output('%1', 'ls\r\n');
    await settle();
    await a.mirror!.flushed();
    expect(a.mirror!.renderText()).toContain('$ ls');
    // no more flood: calm after FLOOD_CALM_MS
    await rig.wait(FLOOD_CALM_MS + 20);
    expect(a.floodSince).toBeNull();
    expect(rig.logs.filter((l) => l.includes('its output calmed'))).toHaveLength(1);
    expect(pauses(rig)).toHaveLength(1);
  });

  it('within a flood, FLOOD_AGAIN_BYTES after the screen was taken pause it again; the screen is taken every FLOOD_PAUSE_MS while it lasts; the light says working', async () => {
    rig = await watchMake();
    const a = rig.sup.agents.get('%1')!;
    await flood(rig, FLOOD_BYTES);
    for (let i = 1; i <= 4; i++) {
      rig.tmux.pane('%1').screen = [`step ${i}`];
      await rig.wait(FLOOD_PAUSE_MS + 10);
      expect(a.outputPaused).toBe(false);
      await flood(rig, FLOOD_AGAIN_BYTES);
      expect(pauses(rig)).toHaveLength(i + 1);
    }
    await a.mirror!.flushed();
    expect(a.mirror!.renderText().trim()).toBe('step 4');
    expect(a.state).toBe('working');
    expect(rig.logs.filter((l) => l.includes('its output floods'))).toHaveLength(1);
    await rig.wait(FLOOD_PAUSE_MS + FLOOD_CALM_MS + 20);
    expect(rig.logs.filter((l) => l.includes('its output calmed'))[0]).toMatch(/\(5 screens taken\)/);
  });

  it('a snapshot for another cause (a resize) while paused continues it too, and the timer does not take it twice', async () => {
    rig = await watchMake();
    const a = rig.sup.agents.get('%1')!;
    await flood(rig, FLOOD_BYTES);
    const continues = (): number => rig!.tmux.sent('refresh-client').filter((w) => w.includes('%1:continue')).length;
    const n = continues();
    rig.tmux.pane('%1').width = 100;
    a.resized(100, 24);
    await settle();
    expect(continues()).toBe(n + 1);
    expect(a.outputPaused).toBe(false);
    await rig.wait(FLOOD_PAUSE_MS + 10);
    expect(continues()).toBe(n + 1);
  });
});

describe('the exit guard in a flood', () => {
  it('the program exited while paused (its status set) and the marker never comes: the guard is released once, EXIT_MARKER_WAIT_MS after the screen; a late marker is not signalled again', async () => {
    rig = await watchMake();
    await flood(rig, FLOOD_BYTES);
    rig.tmux.pane('%1').options.set('@nerdr_exit_status', '2');
    await rig.wait(FLOOD_PAUSE_MS + 10);
    await expectGuardReleasedOnce(rig);
  });

  it('the marker comes after the screen was taken: it releases the guard, and nothing else does', async () => {
    rig = await watchMake();
    await flood(rig, FLOOD_BYTES);
    rig.tmux.pane('%1').options.set('@nerdr_exit_status', '0');
    await rig.wait(FLOOD_PAUSE_MS + 10);
    rig.channel().output('%1', `done\r\n${EXIT_MARKER}`);
    await settle();
    expect(rig.tmux.sent('wait-for')).toEqual([['wait-for', '-S', exitChannel('%1')]]);
    await rig.wait(EXIT_MARKER_WAIT_MS + 100);
    expect(rig.tmux.sent('wait-for')).toHaveLength(1);
  });

  it('the program still runs when the screen is taken (no status, or a line that is not one): nothing is released', async () => {
    rig = await watchMake();
    await flood(rig, FLOOD_BYTES);
    await rig.wait(FLOOD_PAUSE_MS + EXIT_MARKER_WAIT_MS + 100);
    expect(rig.tmux.sent('wait-for')).toEqual([]);
    rig.tmux.pane('%1').options.set('@nerdr_exit_status', '%pause %1');
    await flood(rig, FLOOD_AGAIN_BYTES);
    await flood(rig, FLOOD_BYTES);
    await rig.wait(FLOOD_PAUSE_MS + EXIT_MARKER_WAIT_MS + 100);
    expect(pauses(rig).length).toBeGreaterThan(1);
    expect(rig.tmux.sent('wait-for')).toEqual([]);
  });
});

describe('a flooding pane that dies', () => {
  it("has its screen taken once more from the dead pane: what tmux dropped for us while paused is in no seed", async () => {
    rig = await watchMake();
    const a = rig.sup.agents.get('%1')!;
    await flood(rig, FLOOD_BYTES);
    expect(a.outputPaused).toBe(true);
    const captures = (): number => rig!.tmux.sent('capture-pane').length;
    const before = captures();
    // the program printed its last lines while paused (tmux dropped them for us) and exited
    rig.tmux.pane('%1').screen = ['line 1199999', 'line 1200000', 'FLOOD-END-1'];
    rig.tmux.pane('%1').dead = true;
    rig.tmux.pane('%1').deadStatus = '4';
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $1 @1 1 - : %1|1|4|0|4| ');
    await settle();
    expect(a.dead).toBe(true);
    expect(captures()).toBeGreaterThan(before);
    await a.mirror!.flushed();
    expect(a.mirror!.renderText().trim()).toBe('line 1199999\nline 1200000\nFLOOD-END-1');
  });

  it('a pane that never flooded dies without another capture: its marker came in the stream', async () => {
    rig = await watchMake();
    const a = rig.sup.agents.get('%1')!;
    const before = rig.tmux.sent('capture-pane').length;
    rig.channel().output('%1', 'bye\r\n');
    rig.tmux.pane('%1').dead = true;
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $1 @1 1 - : %1|1|0|0|0| ');
    await settle();
    expect(a.dead).toBe(true);
    expect(rig.tmux.sent('capture-pane').length).toBe(before);
  });
});
