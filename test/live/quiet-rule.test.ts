// A program nerdr does not know, through the real CLI and tmux (docs/state-rules.md, "The quiet
// rule"): `nerdr new --cmd` with a small REPL is working while it prints, idle when quiet at its
// prompt; `send` types into it and the program gets the text; `explain` shows the rule;
// `--idle-after` changes the wait; a program with no prompt (cat) makes `send` refuse at once;
// a manifest of the user's own that names the program wins over the rule.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paneEnv, startLiveEnv, tmuxAvailable, waitFor, type AgentRowLike, type LiveEnv } from './helpers/env.js';
import { Recorder } from './helpers/recorder.js';

/** A REPL: a prompt, a line read, five lines of output 0.3 s apart (its "work"), an answer. */
const REPL = `#!/bin/sh
log=$1
while :; do
  printf 'myrepl> '
  read -r line || exit 0
  printf '%s\\n' "$line" >> "$log"
  for n in 1 2 3 4 5; do echo "working on $line $n"; sleep 0.3; done
  echo "answer: $line"
done
`;

/** The user's own rules for the program named myrepl. */
const MANIFEST = `id = "myrepl"
[[rules]]
id = "myrepl_prompt"
state = "idle"
visible_idle = true
region = "bottom_non_empty_lines(1)"
line_regex = ['^myrepl>']

[[rules]]
id = "myrepl_working"
state = "working"
region = "bottom_non_empty_lines(1)"
contains = ["working on"]
`;

describe.skipIf(!tmuxAvailable)('a program nerdr does not know: the quiet rule, live', () => {
  let env: LiveEnv;
  const rec = new Recorder();
  let quietrepl = '';
  let myrepl = '';

  beforeAll(async () => {
    env = await startLiveEnv();
    const bin = path.join(env.home, 'bin');
    mkdirSync(bin, { recursive: true });
    // the same program under two names: only "myrepl" has a manifest of the user's own
    for (const name of ['quietrepl', 'myrepl']) {
      writeFileSync(path.join(bin, name), REPL);
      chmodSync(path.join(bin, name), 0o755);
    }
    quietrepl = path.join(bin, 'quietrepl');
    myrepl = path.join(bin, 'myrepl');
    mkdirSync(path.join(env.configDir, 'agent-detection'), { recursive: true });
    writeFileSync(path.join(env.configDir, 'agent-detection', 'myrepl.toml'), MANIFEST);
  }, 30_000);

  afterAll(async () => {
    rec.stop();
    await env?.cleanup();
  }, 30_000);

  async function newWindow(...args: string[]): Promise<string> {
    const r = await env.nerdr('new', '-d', ...args);
    expect(r.code, r.stderr).toBe(0);
    const win = r.stdout.trim();
    if (rec.rows.size === 0) {
      await rec.start((await paneEnv(env, win)).NERDR_SOCKET!);
    }
    return win;
  }

  async function row(win: string): Promise<AgentRowLike> {
    const r = (await env.lsJson()).find((a) => a.window === win);
    if (!r) throw new Error(`${win} not in ls`);
    return r;
  }

  async function explain(win: string): Promise<string> {
    const r = await env.nerdr('explain', win);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  }

  it('idle when quiet at its prompt, working while it prints; send types into it and the program gets the text; explain shows the rule', async () => {
    const log = path.join(env.home, 'quietrepl.log');
    const win = await newWindow('--cmd', `${quietrepl} ${log}`, '--name', 'repl');
    const pending = await explain(win);
    expect(pending).toMatch(/no manifest knows this program; the quiet rule: idle once its output is quiet for 3 s with the cursor on an input line/);
    expect(pending).not.toMatch(/startup grace/);
    await rec.reached(win, 'idle', 0, 20_000);
    // starting is not work: unknown straight to idle
    expect(rec.states(win)).toEqual(['unknown', 'idle']);
    const idle = await explain(win);
    expect(idle).toMatch(/quiet for 3 s with the cursor on an input line \(after "myrepl>"\)/);
    expect(idle).toMatch(/the cursor is after "myrepl>"/);

    const mark = rec.mark(win);
    const sent = await env.nerdr('send', win, 'hello quiet', '--wait', '--timeout', '40');
    expect(sent.code, `${sent.stdout}\n${sent.stderr}\n${rec.tail(win)}`).toBe(0);
    expect(sent.stdout).toMatch(/typed in/);
    expect(readFileSync(log, 'utf8')).toBe('hello quiet\n');
    // the receipt and the recorder's stream are two streams: wait for the record to catch up
    await waitFor(() => ['done', 'idle'].includes(rec.states(win, mark).at(-1) ?? ''), { what: `the record to end done or idle (${rec.tail(win)})` });
    const states = rec.states(win, mark);
    expect(states[0], states.join(' → ')).toBe('working');
    expect(states).not.toContain('unknown'); // its pauses (0.3 s) are within the 3 s
    expect((await env.nerdr('read', win)).stdout).toMatch(/answer: hello quiet\s*\n\s*myrepl>\s*$/);
  }, 90_000);

  it('--idle-after changes the wait', async () => {
    const slowLog = path.join(env.home, 'slow.log');
    const fastLog = path.join(env.home, 'fast.log');
    const t0 = Date.now();
    const slow = await newWindow('--cmd', `${quietrepl} ${slowLog}`, '--name', 'slow', '--idle-after', '6');
    const fast = await newWindow('--cmd', `${quietrepl} ${fastLog}`, '--name', 'fast', '--idle-after', '1');
    await rec.reached(fast, 'idle', 0, 20_000);
    await rec.reached(slow, 'idle', 0, 30_000);
    const at = (win: string) => rec.of(win).find((r) => r.row.state === 'idle')!.at;
    // the prompt is drawn after t0, so 6 s of quiet end no sooner than t0 + 6 s
    expect(at(slow) - t0).toBeGreaterThanOrEqual(6000);
    expect(at(fast)).toBeLessThan(at(slow));
    expect(await explain(fast)).toMatch(/quiet for 1 s with the cursor on an input line/);
    expect(await explain(slow)).toMatch(/quiet for 6 s with the cursor on an input line/);
    expect((await env.tmuxOk('show-options', '-wv', '-t', slow, '@nerdr_idle_after')).trim()).toBe('6000');
  }, 60_000);

  it('a program with no prompt (cat): send refuses at once, saying why and what to do', async () => {
    const win = await newWindow('--cmd', 'cat', '--name', 'cat');
    await waitFor(async () => /nerdr send: refused/.test(await explain(win)), { timeoutMs: 20_000, intervalMs: 250, what: 'cat to be past the quiet rule' });
    expect((await row(win)).state).toBe('unknown');
    const r = await env.nerdr('send', win, 'hi');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cat \(@\d+\): its output quiet for 3 s, but the cursor is on an empty line, after no prompt.*nerdr cannot tell whether it waits for input.*the message was not queued/);
    expect(r.stderr).toMatch(/fix: .*agent-detection\/<program>\.toml/);
    expect((await row(win)).queue).toBe(0);
  }, 40_000);

  it("a manifest of the user's own that names the program wins over the rule", async () => {
    const log = path.join(env.home, 'myrepl.log');
    const win = await newWindow('--cmd', `${myrepl} ${log}`, '--name', 'mine');
    await waitFor(async () => (await row(win)).agent === 'myrepl', { timeoutMs: 20_000, what: 'the window to be myrepl' });
    const mark = rec.mark(win);
    await waitFor(async () => (await row(win)).state === 'idle', { timeoutMs: 20_000, what: 'myrepl idle' });
    const e = await explain(win);
    expect(e).toMatch(/screen: idle by myrepl_prompt/);
    expect(e).toMatch(/manifest: .*agent-detection\/myrepl\.toml \(nerdr-config/);
    expect(e).not.toMatch(/quiet rule/);
    const sent = await env.nerdr('send', win, 'by the rules', '--wait', '--timeout', '40');
    expect(sent.code, `${sent.stdout}\n${sent.stderr}\n${rec.tail(win)}`).toBe(0);
    expect(readFileSync(log, 'utf8')).toBe('by the rules\n');
    expect(rec.states(win, mark)).toContain('working');
  }, 60_000);
});
