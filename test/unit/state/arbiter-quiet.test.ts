// The quiet rule: a program no manifest knows (docs/state-rules.md, "The quiet rule").
import { describe, expect, it } from 'vitest';
import { DEFAULT_IDLE_AFTER_MS, STARTUP_GRACE_MS, type ArbiterOptions } from '../../../src/state/index.js';
import { rig } from './helpers.js';

const PROMPT = { prompt: 'myrepl>', why: 'the cursor is after "myrepl>"' };
const NO_PROMPT = { prompt: null, why: 'the cursor is at the start of an empty line' };

function quietRig(opts: Partial<ArbiterOptions> = {}) {
  const r = rig({ agent: 'unknown', ...opts });
  const look = (hash: string, input: { prompt: string | null; why: string } = PROMPT) => {
    const u = r.arb.quietScreen({ hash, ...input });
    r.record(u.view.state);
    return u;
  };
  return { ...r, look };
}

describe('the quiet rule', () => {
  it('a program that draws its prompt and waits: unknown until its output is quiet for 3 s, then idle (not done)', () => {
    const r = quietRig();
    r.start();
    r.look('banner');
    r.wait(500);
    r.look('banner+prompt'); // still starting: drawing is not work
    expect(r.arb.view().state).toBe('unknown');
    expect(r.arb.view().quiet).toMatchObject({ verdict: 'pending', idleAfterMs: DEFAULT_IDLE_AFTER_MS });
    expect(r.arb.view().pending).toEqual([expect.objectContaining({ name: 'quiet-idle', at: r.clock.t + DEFAULT_IDLE_AFTER_MS })]);
    r.wait(DEFAULT_IDLE_AFTER_MS - 1);
    expect(r.arb.view().state).toBe('unknown');
    r.wait(1);
    expect(r.arb.view().state).toBe('idle');
    expect(r.arb.view().reason).toContain('quiet for 3 s with the cursor on an input line (after "myrepl>")');
    expect(r.states).toEqual(['unknown', 'idle']);
  });

  it('no startup grace before it: the rule waits for quiet output itself, and says so', () => {
    const r = quietRig();
    r.start();
    r.look('prompt');
    expect(r.arb.view().reason).toMatch(/^no manifest knows this program: idle once its output is quiet for 3 s/);
    expect(r.arb.view().pending.map((p) => p.name)).toEqual(['quiet-idle']);
  });

  it('output flowing is working, said as output (not a turn); quiet at the prompt again is done, then idle once seen', () => {
    const r = quietRig();
    r.start(false);
    r.look('prompt');
    r.wait(DEFAULT_IDLE_AFTER_MS);
    expect(r.arb.view().state).toBe('idle');
    r.look('prompt+answer1');
    expect(r.arb.view().state).toBe('working');
    expect(r.arb.view().reason).toMatch(/^output flowing: .*not an agent's turn/);
    r.wait(1000);
    r.look('prompt+answer2');
    r.wait(DEFAULT_IDLE_AFTER_MS - 1);
    expect(r.arb.view().state).toBe('working');
    r.look('prompt+answer2'); // an evaluation with the same text is no output
    r.wait(1);
    expect(r.arb.view().state).toBe('done');
    expect(r.arb.seen().view.state).toBe('idle');
  });

  it('quiet with the cursor not on an input line: unknown, saying why; output again and a prompt make it idle', () => {
    const r = quietRig();
    r.start(false);
    r.look('x', NO_PROMPT);
    r.wait(DEFAULT_IDLE_AFTER_MS);
    const v = r.arb.view();
    expect(v.state).toBe('unknown');
    expect(v.quiet?.verdict).toBe('unsure');
    expect(v.reason).toContain('the cursor is at the start of an empty line, and it has not waited at an input line since it started: nerdr cannot tell whether it waits for input');
    expect(v.pending).toEqual([]);
    r.look('y', PROMPT);
    expect(r.arb.view().state).toBe('working');
    r.wait(DEFAULT_IDLE_AFTER_MS);
    expect(r.arb.view().state).toBe('done');
  });

  it('quiet with no prompt after it waited at one before: silent, likely working without output (a message waits)', () => {
    const r = quietRig();
    r.start(false);
    r.look('prompt');
    r.wait(DEFAULT_IDLE_AFTER_MS);
    r.look('prompt+command', NO_PROMPT); // e.g. python running time.sleep(10)
    r.wait(DEFAULT_IDLE_AFTER_MS);
    const v = r.arb.view();
    expect(v.state).toBe('unknown');
    expect(v.quiet?.verdict).toBe('silent');
    expect(v.reason).toContain('it may be working without output');
  });

  it('output after the startup grace is work: a program busy from its start finishes done', () => {
    const r = quietRig();
    r.start();
    r.look('a', NO_PROMPT);
    r.wait(STARTUP_GRACE_MS - 1000);
    r.look('b', NO_PROMPT); // in the grace: still starting
    expect(r.arb.view().state).toBe('unknown');
    r.wait(1500);
    r.look('c', NO_PROMPT);
    expect(r.arb.view().state).toBe('working');
    r.wait(DEFAULT_IDLE_AFTER_MS - 1);
    r.look('d');
    r.wait(DEFAULT_IDLE_AFTER_MS);
    expect(r.states).toEqual(['unknown', 'working', 'done']);
  });

  it('output in the startup grace after the program waited for input is work (a message typed in at once)', () => {
    const r = quietRig({ idleAfterMs: 500 });
    r.start();
    r.look('prompt');
    r.wait(500);
    expect(r.arb.view().state).toBe('idle');
    r.look('prompt+hello');
    expect(r.arb.view().state).toBe('working');
    r.wait(500);
    expect(r.states).toEqual(['unknown', 'idle', 'working', 'done']);
  });

  it('--idle-after changes the wait', () => {
    const r = quietRig({ idleAfterMs: 500 });
    r.start(false);
    r.look('prompt');
    r.wait(499);
    expect(r.arb.view().state).toBe('unknown');
    r.wait(1);
    expect(r.arb.view().state).toBe('idle');
    expect(r.arb.view().reason).toContain('quiet for 0.5 s');
  });

  it('idle after 0 switches it off: unknown with nothing pending, whatever the screen shows', () => {
    const r = quietRig({ idleAfterMs: 0 });
    r.start(false);
    r.look('prompt');
    r.wait(60_000);
    r.look('more');
    const v = r.arb.view();
    expect(v.state).toBe('unknown');
    expect(v.quiet).toMatchObject({ verdict: 'off', idleAfterMs: 0 });
    expect(v.reason).toContain('quiet rule is off');
    expect(v.pending).toEqual([]);
  });

  it('a manifest evaluation takes over from the rule (a manifest always wins), and the view says nothing of it', () => {
    const r = quietRig();
    r.start(false);
    r.look('prompt');
    r.arb.screen({ state: 'working', visibleIdle: false, visibleBlocker: false, visibleWorking: false, skipStateUpdate: false, hash: 'w' });
    expect(r.arb.view().state).toBe('working');
    expect(r.arb.view().quiet).toBeNull();
    r.wait(60_000);
    expect(r.arb.view().state).toBe('working');
  });

  it('a hook or a report outranks it; an exit ends it', () => {
    const r = quietRig();
    r.start(false);
    r.look('prompt');
    r.wait(DEFAULT_IDLE_AFTER_MS);
    expect(r.arb.report({ source: 'custom:me', agent: 'mybot', state: 'working' }).view.state).toBe('working');
    expect(r.arb.processExit().view).toMatchObject({ state: 'exited', quiet: null });
  });

  it('after the grace, a window no screen was read of says so (not "startup grace")', () => {
    const r = rig({ agent: 'cline' });
    r.start();
    r.wait(STARTUP_GRACE_MS + 40_000);
    expect(r.arb.view().reason).toBe('no screen evaluation yet');
  });
});
