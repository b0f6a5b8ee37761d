// A `nerdr new --cmd` program no manifest knows, on a fake tmux: the quiet rule decides its state,
// messages are typed in when it says idle and dropped (saying why) when nerdr cannot tell, and a
// manifest of the user's own that names the program wins.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManifestRegistry } from '../../../src/detect/index.js';
import { DEFAULT_IDLE_AFTER_MS } from '../../../src/state/index.js';
import { startRig, settle, type Rig } from './harness.js';
import { SAME_TURN_EVAL_MAX, type WatchedAgent } from '../../../src/supervisor/agent.js';

let rig: Rig | null = null;
let dir: string | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

const CMD = { agent: 'unknown', argv: ['/bin/sh', '-c', 'myrepl'] };

/** A `--cmd` window showing `prompt`, left quiet until the rule says idle: its rig and agent. */
async function idleAt(prompt: string): Promise<{ r: Rig; a: WatchedAgent }> {
  const r = (rig = await startRig((t) => void t.addPane({ ...CMD, screen: [prompt] })));
  await r.wait(DEFAULT_IDLE_AFTER_MS + 300);
  const a = r.sup.agents.get('%1')!;
  expect(a.state).toBe('idle');
  return { r, a };
}

describe('the quiet rule in a window', () => {
  it('quiet at its prompt: idle after 3 s; its output flowing: working; quiet at the prompt again: done', async () => {
    rig = await startRig((t) => void t.addPane({ ...CMD, screen: ['myrepl> '] }));
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    expect(a.state).toBe('unknown');
    expect(a.arbiter.view().quiet).toMatchObject({ verdict: 'pending', prompt: 'myrepl>' });
    await rig.wait(DEFAULT_IDLE_AFTER_MS);
    expect(a.state).toBe('idle');
    expect(a.unknowable).toBeNull();
    rig.channel().output('%1', 'hello\r\ngot: hello\r\nmyrepl> ');
    await rig.wait(100);
    expect(a.state).toBe('working');
    expect(a.arbiter.view().reason).toMatch(/^output flowing/);
    await rig.wait(DEFAULT_IDLE_AFTER_MS + 100);
    expect(a.state).toBe('done');
  });

  it('a small write after a quiet spell is judged in the turn that read it; a large one 2 ms later, with the rest of its draw', async () => {
    const { r, a } = await idleAt('myrepl> ');
    r.channel().output('%1', 'x');
    r.time.advance(0);
    expect(a.state).toBe('working');
    // and its light goes out at the end of that turn too (the flush waits for no timer of its own)
    r.time.advance(0);
    await settle();
    expect(r.tmux.pane('%1').options.get('@nerdr_state')).toBe('working');
    await r.wait(DEFAULT_IDLE_AFTER_MS + 300);
    expect(a.state).toBe('done');
    r.channel().output('%1', 'y'.repeat(SAME_TURN_EVAL_MAX + 1));
    await settle(); // the mirror parses it
    r.time.advance(1);
    expect(a.state).toBe('done');
    r.time.advance(1);
    expect(a.state).toBe('working');
  });

  it("the window's own wait (@nerdr_idle_after, from --idle-after) is used, and saved for nerdr restore", async () => {
    rig = await startRig((t) => void t.addPane({ ...CMD, screen: ['myrepl> '], options: new Map([['@nerdr_idle_after', '500']]) }));
    await rig.wait(700);
    expect(rig.sup.agents.get('%1')!.state).toBe('idle');
    await rig.wait(1500);
    const dir = path.join(rig.stateDir, 'sessions');
    const saved = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { windows: { idleAfterMs?: number }[] });
    expect(saved[0]!.windows[0]!.idleAfterMs).toBe(500);
  });

  it('createWindow with --idle-after: kept on the window as @nerdr_idle_after, and the window uses it at once', async () => {
    rig = await startRig();
    const w = await rig.sup.createWindow({ ...CMD, name: 'repl', cwd: '/w', session: 'user', userArgs: [], callerEnv: {}, env: {}, watched: true, idleAfterMs: 1500 });
    expect(rig.tmux.pane(w.pane).options.get('@nerdr_idle_after')).toBe('1500');
    expect(w.watched!.idleAfterMs).toBe(1500);
  });

  it('a message is typed in once the rule says idle; its echo is output, so Enter confirms it', async () => {
    rig = await startRig((t) => void t.addPane({ ...CMD, screen: ['myrepl> '] }));
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    const { id } = rig.sup.messages.enqueue(a, 'hello');
    await rig.wait(300);
    expect(rig.tmux.sent('set-buffer')).toEqual([]);
    await rig.wait(DEFAULT_IDLE_AFTER_MS - 300);
    expect(rig.tmux.sent('set-buffer').map((w) => w.at(-1))).toEqual(['hello']);
    rig.channel().output('%1', 'hello'); // the terminal echoes what was typed
    await rig.wait(400);
    expect(rig.tmux.sent('send-keys')).toEqual([['send-keys', '-t', '%1', 'Enter']]);
    expect(rig.sup.messages.queue(a).messages).toEqual([]);
    rig.channel().output('%1', '\r\ngot: hello\r\nmyrepl> ');
    await rig.wait(DEFAULT_IDLE_AFTER_MS + 100);
    const r = rig.sup.messages.receipt(id)!.receipt;
    expect(r.startedAt).not.toBeNull();
    expect(r.stalledAt).toBeNull();
    expect(r.states.map((x) => x.state)).toEqual(['working', 'done']);
  });

  it('quiet with no prompt at the cursor: nerdr cannot tell, and a message queued before is dropped, its receipt saying why', async () => {
    rig = await startRig((t) => void t.addPane({ ...CMD, screen: ['hello', ''] }));
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    const { id } = rig.sup.messages.enqueue(a, 'are you there');
    await rig.wait(DEFAULT_IDLE_AFTER_MS);
    expect(a.state).toBe('unknown');
    expect(a.unknowable).toMatch(/the cursor is on an empty line, after no prompt, and it has not waited at an input line since it started: nerdr cannot tell/);
    expect(rig.sup.messages.queue(a).messages).toEqual([]);
    expect(rig.sup.messages.receipt(id)!.receipt).toMatchObject({ pastedAt: null, closed: expect.stringMatching(/^not typed in: .*cannot tell/) });
    expect(rig.tmux.sent('set-buffer')).toEqual([]);
    expect(rig.tmux.pane('%1').options.get('@nerdr_light')).not.toMatch(/✉/);
  });

  it('silent after it waited at a prompt before (working without output): a queued message waits for the next prompt', async () => {
    const { r, a } = await idleAt('>>> ');
    r.channel().output('%1', 'time.sleep(10)\r\n');
    await r.wait(100);
    r.sup.messages.enqueue(a, 'print(1)');
    await r.wait(DEFAULT_IDLE_AFTER_MS + 1000);
    expect(a.arbiter.view().quiet?.verdict).toBe('silent');
    expect(a.unknowable).toBeNull();
    expect(r.sup.messages.queue(a).messages.map((m) => m.text)).toEqual(['print(1)']);
    r.channel().output('%1', '>>> ');
    await r.wait(DEFAULT_IDLE_AFTER_MS + 100);
    expect(r.tmux.sent('set-buffer').map((w) => w.at(-1))).toEqual(['print(1)']);
  });

  it('--idle-after 0: the rule is off, nerdr cannot tell', async () => {
    rig = await startRig((t) => void t.addPane({ ...CMD, screen: ['myrepl> '], options: new Map([['@nerdr_idle_after', '0']]) }));
    await rig.wait(DEFAULT_IDLE_AFTER_MS + 300);
    const a = rig.sup.agents.get('%1')!;
    expect(a.state).toBe('unknown');
    expect(a.unknowable).toMatch(/quiet rule is off/);
  });

  it("a manifest of the user's own that names the program wins: the window is that program's, read by the manifest", async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'nerdr-quiet-'));
    writeFileSync(
      path.join(dir, 'myrepl.toml'),
      'id = "myrepl"\n[[rules]]\nid = "prompt"\nstate = "idle"\nvisible_idle = true\nregion = "bottom_non_empty_lines(1)"\ncontains = ["myrepl>"]\n',
    );
    const manifests = new ManifestRegistry({ env: {}, extraDirs: [dir] });
    expect(manifests.userPrograms().get('myrepl')).toBe('myrepl');
    rig = await startRig((t) => void t.addPane({ ...CMD, screen: ['myrepl> '] }), {
      manifests,
      probe: async () => ({ agent: 'myrepl', pid: 4001, why: 'group leader 4001 (myrepl): process name myrepl → myrepl', foreground: 'job', pgid: 4001 }),
    });
    await rig.wait(200);
    await settle();
    const a = rig.sup.agents.get('%1')!;
    expect(a.agent).toBe('myrepl');
    await rig.wait(3100);
    expect(a.state).toBe('idle');
    expect(a.arbiter.view()).toMatchObject({ quiet: null, screen: { rule: 'prompt' } });
  });
});
