// Taking a pane's screen (src/supervisor/agent.ts, snapshot()) on a fake tmux whose answers can be
// held back, as a real one's are while the supervisor is behind. tmux writes a pane's queued
// output without waiting for the lines queued ahead of it (control.c, control_write_pending), so
// output read after the capture can come before the capture's answer: it must be kept, and what
// came before the capture must not be written twice.
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_MARKER_WAIT_MS, SEED_TAIL_MAX } from '../../../src/supervisor/agent.js';
import { expectGuardReleasedOnce, startRig, settle, words, type Rig } from './harness.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

const CMD = { agent: 'unknown', argv: ['/bin/sh', '-c', 'make'] };

/** A supervisor watching one `--cmd` window, its first look done. */
async function watched(): Promise<Rig> {
  const r = await startRig((t) => void t.addPane({ ...CMD, screen: ['$ make'] }));
  await r.wait(300);
  return r;
}

/** The commands sent for %1's output and screen since `from`: pause, continue, capture. */
function steps(r: Rig, from: number): string[] {
  return r.tmux.lines
    .slice(from)
    .map((l) => l.map((c) => words(c).join(' ')))
    .flatMap((l) => {
      // a line's commands: its continue, and its first capture-pane (a capture is four of them)
      const cmds = l.filter((c) => /^refresh-client -A %1:/.test(c)).map((c) => c.split(':')[1]!);
      return l.some((c) => /^capture-pane .*%1/.test(c)) ? [...cmds, 'capture'] : cmds;
    });
}

async function screenOf(r: Rig): Promise<string> {
  await settle();
  const m = r.sup.agents.get('%1')!.mirror!;
  await m.flushed();
  return m.renderText().trim();
}

describe("a pane's screen, taken while tmux's answers are behind", () => {
  it('a quiet pane is taken on one line, which continues it and captures it: nothing paused, no round trip more', async () => {
    rig = await watched();
    expect(steps(rig, 0)).toEqual(['continue', 'capture']);
  });

  it('tmux paused it (we fell behind): output that comes before the capture is answered is newer than it, and is written after the seed', async () => {
    rig = await watched();
    const a = rig.sup.agents.get('%1')!;
    const from = rig.tmux.lines.length;
    rig.tmux.pane('%1').screen = ['line 1', 'line 2'];
    rig.channel().hold = true;
    // after a %pause, none of the pane's older output is on its way: no pause of our own first
    rig.channel().notify('pause', '%1');
    expect(steps(rig, from)).toEqual(['continue', 'capture']);
    expect(a.seeding).toBe(true);
    // tmux read this after the capture, and wrote it before the capture's answer
    rig.channel().output('%1', '\r\nDIALOG-AFTER');
    rig.channel().hold = false;
    rig.channel().release();
    expect(await screenOf(rig)).toBe('line 1\nline 2\nDIALOG-AFTER');
    expect(rig.logs.filter((l) => l.includes('tmux paused its output'))).toHaveLength(1);
  });

  it('a pane not paused for us, with output before the answer (older or newer than the capture?): taken again, paused first, and nothing is written twice', async () => {
    rig = await watched();
    const a = rig.sup.agents.get('%1')!;
    const from = rig.tmux.lines.length;
    rig.channel().hold = true;
    rig.tmux.pane('%1').screen = ['$ make', 'OLD-LINE'];
    a.resized(100, 24);
    expect(steps(rig, from)).toEqual(['continue', 'capture']);
    // before the answer, from a pane that was not paused: its age is unknown
    rig.channel().output('%1', '\r\nOLD-LINE');
    rig.tmux.pane('%1').screen = ['$ make', 'OLD-LINE', 'OLD-2'];
    rig.channel().release();
    expect(steps(rig, from)).toEqual(['continue', 'capture', 'pause']);
    // before the pause's answer: older than the capture to come, which has it
    rig.channel().output('%1', '\r\nOLD-2');
    rig.channel().release();
    expect(steps(rig, from)).toEqual(['continue', 'capture', 'pause', 'continue', 'capture']);
    // after the continue: newer than the capture
    rig.channel().output('%1', '\r\nNEW-LINE');
    rig.channel().hold = false;
    rig.channel().release();
    expect(await screenOf(rig)).toBe('$ make\nOLD-LINE\nOLD-2\nNEW-LINE');
    // our own pause is no sign of falling behind
    expect(rig.logs.filter((l) => l.includes('tmux paused its output'))).toEqual([]);
  });

  it('a %pause that comes while the continue is on its way is older than it: no second snapshot', async () => {
    rig = await watched();
    const from = rig.tmux.lines.length;
    rig.channel().hold = true;
    rig.channel().notify('pause', '%1');
    rig.channel().notify('pause', '%1');
    rig.channel().hold = false;
    rig.channel().release();
    await settle();
    expect(steps(rig, from)).toEqual(['continue', 'capture']);
    expect(rig.logs.filter((l) => l.includes('tmux paused its output'))).toHaveLength(1);
  });

  it('a snapshot asked for while one is being taken is taken after it, not beside it', async () => {
    rig = await watched();
    const a = rig.sup.agents.get('%1')!;
    const from = rig.tmux.lines.length;
    rig.channel().hold = true;
    a.resized(100, 24);
    rig.tmux.pane('%1').height = 30;
    a.resized(100, 30);
    expect(steps(rig, from)).toEqual(['continue', 'capture']);
    rig.channel().hold = false;
    rig.channel().release();
    await settle();
    expect(steps(rig, from)).toEqual(['continue', 'capture', 'continue', 'capture']);
    expect(a.seeding).toBe(false);
  });

  it('more than SEED_TAIL_MAX of output before the answer is not kept: the screen is taken again', async () => {
    rig = await watched();
    const from = rig.tmux.lines.length;
    rig.channel().hold = true;
    rig.channel().notify('pause', '%1');
    const line = `${'y'.repeat(1022)}\r\n`;
    for (let n = 0; n <= SEED_TAIL_MAX; n += line.length) rig.channel().output('%1', line);
    rig.tmux.pane('%1').screen = ['AFTER-ALL'];
    rig.channel().hold = false;
    rig.channel().release();
    await settle();
    expect(steps(rig, from)).toEqual(['continue', 'capture', 'pause', 'continue', 'capture']);
    expect(await screenOf(rig)).toBe('AFTER-ALL');
  });

  it('the program exited while the pane was paused (its status set) and the marker never comes: the guard is released EXIT_MARKER_WAIT_MS after the screen, once', async () => {
    rig = await watched();
    rig.tmux.pane('%1').options.set('@nerdr_exit_status', '3');
    rig.channel().notify('pause', '%1');
    await settle();
    await expectGuardReleasedOnce(rig);
  });

  it('a pane that was not paused is not asked for its exit: its marker could not have been dropped', async () => {
    rig = await watched();
    rig.tmux.pane('%1').options.set('@nerdr_exit_status', '3');
    rig.sup.agents.get('%1')!.resized(100, 24);
    await settle();
    await rig.wait(EXIT_MARKER_WAIT_MS + 100);
    expect(rig.tmux.sent('wait-for')).toEqual([]);
  });
});
