// The supervisor on a fake control channel and a fake clock: no tmux is run.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_GUARD_SCRIPT, EXIT_MARKER, exitChannel, hashSecret } from '../../../src/supervisor/create.js';
import { systemClock } from '../../../src/supervisor/clock.js';
import { startRig, settle, type Rig } from './harness.js';
import { QueueStore } from '../../../src/store/queue.js';

const RULE = '─'.repeat(80);
const IDLE = ['nerdr demo agent', '', RULE, '❯', RULE, '  ? for shortcuts · demo agent'];
const WORKING = ['nerdr demo agent', '', '✻ Thinking… (3s · esc to interrupt)', '', RULE, '❯', RULE];

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('connecting', () => {
  it('a control client a crashed supervisor left on _nerdr is ended; a user client is left alone', async () => {
    const stale = spawn('sleep', ['60'], { stdio: 'ignore' });
    const user = spawn('sleep', ['60'], { stdio: 'ignore' });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => stale.on('exit', (_code, signal) => resolve(signal)));
    try {
      rig = await startRig((t) => {
        t.clients.push({ name: 'old-supervisor', control: true, pid: stale.pid!, session: '_nerdr', windowId: '@0', focused: false, inMode: false });
        t.clients.push({ name: 'user', control: false, pid: user.pid!, session: '_nerdr', windowId: '@0', focused: true, inMode: false });
      }, { clock: systemClock }); // it waits, in real time, for the process to go
      expect(await ended).toBe('SIGTERM');
      // before the supervisor's own control client came (a client that detaches while another
      // identifies itself crashes tmux < 3.7): found by a plain list-clients, and waited for
      // until tmux no longer lists it
      expect(rig.tmux.plainLists.every((opened) => opened === 0)).toBe(true);
      expect(rig.tmux.listed[0]).toEqual({ channel: false, pids: [stale.pid, user.pid] });
      expect(rig.tmux.listed.at(-2)).toEqual({ channel: false, pids: [user.pid] });
      expect(rig.tmux.listed.at(-1)).toEqual({ channel: true, pids: [user.pid] });
      expect(rig.logs.filter((l) => l.includes('ending stale control client'))).toHaveLength(1);
      expect(user.exitCode).toBeNull();
      expect(rig.logs.some((l) => l.includes('ending stale control client old-supervisor'))).toBe(true);
    } finally {
      stale.kill('SIGKILL');
      user.kill('SIGKILL');
    }
  });
});

describe('the output keeper', () => {
  const firstIndex = (r: Rig, text: string) => r.tmux.lines.findIndex((l) => l.some((c) => c.includes(text)));
  const listsBefore = (r: Rig, index: number) => r.tmux.lines.slice(0, index).filter((l) => l.some((c) => c.startsWith('list-clients'))).length;

  it('is listed by tmux before the supervisor goes on (nothing makes tmux notify every control client while it identifies itself)', async () => {
    rig = await startRig((t) => {
      t.keeper = 4242;
      t.keeperListedAt = 3; // the plain list before the channel is the first
    }, { clock: systemClock });
    const next = firstIndex(rig, 'destroy-unattached');
    expect(next).toBeGreaterThan(0);
    // two lists through the channel: the keeper was not there at the first
    expect(listsBefore(rig, next)).toBe(3); // the two waits and the stale clients' sweep
    expect(rig.logs.some((l) => l.includes('output keeper'))).toBe(false);
  });

  it('one that never shows is waited for 2 s, said in the log, and the supervisor goes on', async () => {
    rig = await startRig((t) => {
      t.keeper = 4242;
      t.keeperListedAt = Number.POSITIVE_INFINITY;
    }, { clock: systemClock });
    expect(rig.sup.ready).toBe(true);
    expect(rig.logs.some((l) => l.includes('the output keeper (pid 4242) is not attached after 2 s; going on'))).toBe(true);
  });
});

describe('discovery', () => {
  it('finds every tagged pane, links a window that lost its _nerdr link, and forgets a closed one', async () => {
    rig = await startRig((t) => {
      t.addPane({ name: 'api' });
      t.addPane({ name: 'web', inHidden: false });
    });
    expect([...rig.sup.agents.values()].map((a) => a.name)).toEqual(['api', 'web']);
    expect(rig.tmux.sent('link-window')).toEqual([['link-window', '-d', '-s', '@2', '-t', '=_nerdr:']]);
    rig.tmux.panes.delete('%1');
    rig.channel().notify('window-close', '@1');
    await rig.wait(50);
    expect([...rig.sup.agents.keys()]).toEqual(['%2']);
  });
});

/** The last value the supervisor gave a window option. */
const opt = (r: Rig, pane: string, name: string): string | undefined => r.tmux.pane(pane).options.get(name);
const show = (r: Rig, pane: string, rows: string[]): void => {
  r.channel().output(pane, '\x1b[2J\x1b[H' + rows.join('\r\n'));
};

describe('seeding', () => {
  it('a mirror starts from the captured screen; output while a snapshot is on its way is dropped', async () => {
    rig = await startRig((t) => void t.addPane({ screen: ['hello from before'] }));
    const a = rig.sup.agents.get('%1')!;
    expect(rig.tmux.sent('capture-pane').length).toBeGreaterThanOrEqual(3);
    expect(a.mirror?.renderText()).toMatch(/^hello from before\n/);
    rig.tmux.pane('%1').width = 100;
    rig.channel().notify('layout-change', '@1 b25d,100x24,0,0,1');
    expect(a.seeding).toBe(true);
    rig.channel().output('%1', 'lost');
    await settle();
    expect(a.mirror?.cols).toBe(100);
    expect(a.mirror?.renderText()).not.toMatch(/lost/);
    rig.channel().output('%1', ' and after');
    await settle();
    expect(a.mirror?.renderText()).toMatch(/^hello from before and after/);
  });

  it('%pause: the pane is continued and taken again', async () => {
    rig = await startRig((t) => void t.addPane());
    const before = rig.tmux.sent('refresh-client').filter((w) => w[2] === '%1:continue').length;
    rig.channel().notify('pause', '%1');
    await settle();
    expect(rig.tmux.sent('refresh-client').filter((w) => w[2] === '%1:continue').length).toBe(before + 1);
  });
});

describe('evaluation and lights', () => {
  it('the screen sets the state, and the light follows in one command line', async () => {
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    await rig.wait(300);
    expect(rig.sup.agents.get('%1')!.state).toBe('idle');
    expect(opt(rig, '%1', '@nerdr_state')).toBe('idle');
    show(rig, '%1', WORKING);
    await rig.wait(300);
    expect(rig.sup.agents.get('%1')!.state).toBe('working');
    expect(opt(rig, '%1', '@nerdr_state')).toBe('working');
    expect(rig.tmux.globals.get('@nerdr_summary')).toBeDefined();
    // the state and the light of a window go out together
    const line = rig.tmux.lines.find((l) => l.some((c) => c.includes("'@nerdr_state' 'working'")));
    expect(line?.some((c) => c.includes('@nerdr_light'))).toBe(true);
    // back at the prompt, unchanged for a while: done
    show(rig, '%1', IDLE);
    await rig.wait(4000);
    expect(rig.sup.agents.get('%1')!.state).toBe('done');
    expect(JSON.parse(opt(rig, '%1', '@nerdr_facts')!)).toMatchObject({ v: 1 });
  });

  it('a stream of output is judged at most every 50 ms', async () => {
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    await rig.wait(20);
    const a = rig.sup.agents.get('%1')!;
    const seen: number[] = [];
    let last = a.lastDetection;
    for (let i = 0; i < 20; i++) {
      rig.channel().output('%1', 'x');
      await settle(); // the mirror parses a write in far less than 10 ms
      await rig.wait(10);
      if (a.lastDetection !== last) seen.push(rig.time.t);
      last = a.lastDetection;
    }
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.length).toBeLessThanOrEqual(5);
    for (let i = 1; i < seen.length; i++) expect(seen[i]! - seen[i - 1]!).toBeGreaterThanOrEqual(50);
  });

  it('a blank screen is unknown, not the idle fallback', async () => {
    rig = await startRig((t) => void t.addPane({ screen: [] }));
    await rig.wait(5000);
    expect(rig.sup.agents.get('%1')!.state).toBe('unknown');
  });

  it('the agent exits: exited; a closed window takes its light with it', async () => {
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    await rig.wait(20);
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $1 @1 1 - : %1|1|3|0|| ');
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    expect(a.state).toBe('exited');
    expect(a.deadStatus).toBe('3');
    expect(opt(rig, '%1', '@nerdr_state')).toBe('exited');
  });

  it('dead before its status (the pty closed before tmux reaped the process): the status follows', async () => {
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    await rig.wait(20);
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $1 @1 1 - : %1|1||0|| ');
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    expect(a.state).toBe('exited');
    expect(a.deadStatus).toBe('');
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $1 @1 1 - : %1|1|5|0|| ');
    await rig.wait(300);
    expect(a.deadStatus).toBe('5');
  });

  it("dead without tmux's status (tmux 3.3): the exit guard's status; tmux's own wins when it has one", async () => {
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    await rig.wait(20);
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $1 @1 1 - : %1|1||0|3| ');
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    expect(a.state).toBe('exited');
    expect(a.deadStatus).toBe('3');
    await rig.done();
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    await rig.wait(20);
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $1 @1 1 - : %1|1|0|0|7| ');
    await rig.wait(300);
    expect(rig.sup.agents.get('%1')!.deadStatus).toBe('0');
  });

  it("a live pane's stale guard status is not an exit status; a foreground command may hold a |", async () => {
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    await rig.wait(20);
    rig.channel().notify('subscription-changed', 'nerdr-p@1 $1 @1 1 - : %1|0||0|3|a\\|b ');
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    expect(a.state).not.toBe('exited');
    expect(a.deadStatus).toBe('');
    // (the field the process detection reads, private to the agent)
    expect((a as unknown as { lastCommand: string }).lastCommand).toBe('a|b');
  });

  it('a hook fact counts: prompt-submit makes it working', async () => {
    rig = await startRig((t) => void t.addPane({ agent: 'claude', screen: IDLE }));
    await rig.wait(20);
    const a = rig.sup.agents.get('%1')!;
    rig.sup.onHook(a, 'claude', { hook_event_name: 'UserPromptSubmit', session_id: '6f1c2a7e-0000-4000-8000-000000000001' });
    await rig.wait(20);
    expect(a.state).toBe('working');
    expect(a.arbiter.view().conversationId).toBe('6f1c2a7e-0000-4000-8000-000000000001');
  });
});

describe('seen', () => {
  it('a done agent becomes idle once a focused client has shown its window for a second', async () => {
    rig = await startRig((t) => void t.addPane({ screen: WORKING }));
    await rig.wait(20);
    show(rig, '%1', IDLE);
    await rig.wait(4000);
    const a = rig.sup.agents.get('%1')!;
    expect(a.state).toBe('done');
    rig.tmux.clients.push({ name: 'user-client', control: false, windowId: '@1', focused: false, inMode: false });
    rig.channel().notify('session-window-changed', '$1 @1');
    await rig.wait(2000);
    expect(a.state).toBe('done'); // not focused
    rig.tmux.clients[0]!.focused = true;
    rig.channel().notify('client-session-changed', 'user-client $1 user');
    await rig.wait(500);
    expect(a.state).toBe('done');
    await rig.wait(600);
    expect(a.state).toBe('idle');
    expect(a.arbiter.view().seen).toBe(true);
  });
});

describe('messages', () => {
  it('a message to an idle agent is pasted, Enter follows, and the agent starting to work confirms it', async () => {
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    expect(a.state).toBe('idle');
    rig.sup.messages.enqueue(a, 'run the tests');
    await settle();
    const paste = rig.tmux.sent('set-buffer', 'paste-buffer');
    expect(paste[0]).toContain('run the tests');
    expect(paste[1]).toEqual(expect.arrayContaining(['paste-buffer', '-p', '-t', '%1']));
    expect(rig.tmux.sent('send-keys')).toEqual([]);
    await rig.wait(300);
    expect(rig.tmux.sent('send-keys')).toEqual([['send-keys', '-t', '%1', 'Enter']]);
    expect(rig.sup.messages.queue(a).messages).toHaveLength(1);
    show(rig, '%1', WORKING);
    await rig.wait(300);
    expect(a.state).toBe('working');
    expect(rig.sup.messages.queue(a).messages).toHaveLength(0);
  });

  it('no response in 5 s: the queue pauses (✉n⏸) until the user visits the window', async () => {
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    rig.sup.messages.enqueue(a, 'first');
    rig.sup.messages.enqueue(a, 'second');
    await rig.wait(5500);
    expect(rig.sup.messages.queue(a).stalledAt).not.toBeNull();
    // the light's live look ends before the comma that starts its offline one
    expect(rig.tmux.pane('%1').options.get('@nerdr_light')).toMatch(/✉1⏸,/);
    expect(rig.tmux.sent('set-buffer').map((w) => w.at(-1))).toEqual(['first']);
    rig.tmux.clients.push({ name: 'user-client', control: false, windowId: '@1', focused: true, inMode: false });
    rig.channel().notify('session-window-changed', '$1 @1');
    await rig.wait(1500);
    expect(rig.sup.messages.queue(a).stalledAt).toBeNull();
    expect(rig.tmux.sent('set-buffer').map((w) => w.at(-1))).toEqual(['first', 'second']);
  });

  it('a receipt follows the message: queued, typed in, the turn it started, each state after, closed by the next message', async () => {
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    const moved: string[] = [];
    rig.sup.on('receipt', (_a, r) => void moved.push(`${r.id}:${r.pastedAt !== null}/${r.startedAt !== null}/${r.states.map((x) => x.state).join(',')}/${r.closed ?? ''}`));
    const { id } = rig.sup.messages.enqueue(a, 'run the tests');
    await rig.wait(300);
    show(rig, '%1', WORKING);
    await rig.wait(300);
    show(rig, '%1', IDLE);
    await rig.wait(3000);
    expect(a.state).toBe('done');
    const r = rig.sup.messages.receipt(id)!.receipt;
    expect(r.pastedAt).not.toBeNull();
    expect(r.startedAt).not.toBeNull();
    expect(r.states.map((x) => x.state)).toEqual(['working', 'done']);
    expect(r.closed).toBeNull();
    // on disk with the queue: a restarted supervisor has it, and goes on following it
    const again = new QueueStore(path.join(rig.stateDir, 'queues')).load(a.id).queue.receipts;
    expect(again.map((x) => x.id)).toEqual([id]);
    const second = rig.sup.messages.enqueue(a, 'and the lint');
    await rig.wait(300);
    expect(rig.sup.messages.receipt(id)!.receipt.closed).toBe('the next message was typed in');
    expect(rig.sup.messages.receipt(second.id)!.receipt.pastedAt).not.toBeNull();
    expect(moved[0]).toBe(`${id}:true/false//`);
    expect(moved).toContain(`${id}:true/true/working,done/`);
  });

  it('a message queued while the screen is being taken again is typed once the snapshot is in, the state unchanged', async () => {
    // CI (tmux 3.7c): a message sent to an idle agent while its pane was being captured (a new
    // supervisor's first look, or a resize) waited for ever: nothing tried again when the snapshot came
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    expect(a.state).toBe('idle');
    rig.tmux.pane('%1').width = 100;
    rig.channel().notify('layout-change', '@1 b25d,100x24,0,0,1');
    expect(a.seeding).toBe(true);
    rig.sup.messages.enqueue(a, 'after the resize');
    await rig.wait(300);
    expect(a.seeding).toBe(false);
    expect(a.state).toBe('idle');
    expect(rig.tmux.sent('set-buffer').map((w) => w.at(-1))).toEqual(['after the resize']);
  });

  it('nothing is typed into a working agent; the light shows the queue', async () => {
    rig = await startRig((t) => void t.addPane({ screen: WORKING }));
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    rig.sup.messages.enqueue(a, 'later');
    await rig.wait(300);
    expect(rig.tmux.sent('set-buffer', 'paste-buffer')).toEqual([]);
    expect(rig.tmux.pane('%1').options.get('@nerdr_light')).toMatch(/✉1,/);
  });
});

describe('saving and restarts', () => {
  it('the agent windows of each session are saved a second after a change', async () => {
    rig = await startRig((t) => {
      t.addPane({ name: 'api', args: ['--model', 'x'] });
      t.addPane({ name: 'web', session: 'other' });
    });
    await rig.wait(1500);
    const files = readdirSync(path.join(rig.stateDir, 'sessions')).filter((f) => f.endsWith('.json'));
    const saved = files.map((f) => JSON.parse(readFileSync(path.join(rig!.stateDir, 'sessions', f), 'utf8')) as { session: string; windows: { name: string; args: string[] }[] });
    expect(saved.map((s) => [s.session, s.windows.map((w) => w.name)]).sort()).toEqual([['other', ['web']], ['user', ['api']]]);
    expect(saved.find((s) => s.session === 'user')!.windows[0]!.args).toEqual(['--model', 'x']);
  });

  it('a window found again takes back what the last supervisor kept in @nerdr_facts', async () => {
    rig = await startRig((t) => {
      const p = t.addPane({ agent: 'claude', screen: IDLE });
      p.options.set('@nerdr_facts', JSON.stringify({ v: 1, conversation: { id: 'conv-1', from: 'hook', owner: null }, subagents: 0, backgroundTasks: 0, seen: false }));
    });
    const v = rig.sup.agents.get('%1')!.arbiter.view();
    expect(v.conversationId).toBe('conv-1');
  });

  it('the control channel ends while tmux runs on: a new one is opened and every pane is seeded again', async () => {
    rig = await startRig((t) => void t.addPane({ screen: IDLE }));
    const first = rig.channel();
    first.kill();
    await rig.wait(250);
    await settle();
    expect(rig.channel()).not.toBe(first);
    expect(rig.tmux.lines.slice(-10).flat().some((c) => c.startsWith('capture-pane'))).toBe(true);
    expect(rig.sup.ready).toBe(true);
  });
});

describe('intents', () => {
  const CONV = '6f1c2a7e-0000-4000-8000-00000000c0de';

  it('createWindow: made in _nerdr, tagged and linked; watched, with its conversation and note, before it resolves', async () => {
    rig = await startRig();
    const w = await rig.sup.createWindow({
      agent: 'demo', name: 'api\nx', cwd: '/w', session: 'user', argv: ['demo', '--fast'], userArgs: ['--fast'],
      callerEnv: { PATH: '/opt/bin', TMUX: '/tmp/x,1,0', NERDR_TAB: 'stale', 'BAD NAME': 'x' }, env: { EXTRA: '1' },
      watched: true, conversation: { id: CONV, from: 'launch' }, note: 'hello',
    });
    expect(w.watched).toBe(rig.sup.agents.get(w.pane));
    const { name, agent, args, note } = w.watched!;
    expect({ name, agent, args, note }).toEqual({ name: 'api x', agent: 'demo', args: ['--fast'], note: 'hello' });
    expect(w.watched!.arbiter.view()).toMatchObject({ conversationId: CONV, conversationFrom: 'launch' });
    const p = rig.tmux.pane(w.pane);
    expect(p.session).toBe('user');
    expect(p.env).toMatchObject({ PATH: '/opt/bin', EXTRA: '1', NERDR_AGENT: 'demo', HERDR_ENV: '1' });
    expect(p.env.TMUX).toBeUndefined();
    expect(p.env.NERDR_TAB).not.toBe('stale');
    expect(hashSecret(p.env.NERDR_TAB!)).toBe(w.watched!.secretHash);
    expect(p.options.get('@nerdr_note')).toBe(undefined); // written by the lights, a moment later
    await rig.wait(300);
    expect(p.options.get('@nerdr_note')).toBe('hello');
  });

  it('createWindow for a terminal: linked, not watched', async () => {
    rig = await startRig();
    const w = await rig.sup.createWindow({ agent: 'unknown', name: 'sh', cwd: '/w', session: 'user', argv: ['sh'], userArgs: [], callerEnv: { A: '1' }, env: { NERDR_X: 'no' }, watched: false });
    expect(w.watched).toBeNull();
    expect(rig.sup.agents.size).toBe(0);
    expect(rig.tmux.pane(w.pane).env).toEqual({ A: '1' });
    expect(rig.tmux.sent('unlink-window')).toHaveLength(1);
    // not in _nerdr: no marker of its would reach the supervisor, so no exit guard either
    expect(rig.tmux.sent('new-window')[0]).not.toContain('nerdr-guard');
  });

  it('respawn: a new program with a new secret; waits on the old one end; the conversation it resumes', async () => {
    rig = await startRig((t) => void t.addPane({ agent: 'claude', screen: IDLE }));
    const a = rig.sup.agents.get('%1')!;
    const before = { hash: a.secretHash, generation: a.generation };
    await rig.sup.respawn(a, { argv: ['claude', '--resume', CONV], callerEnv: {}, env: { HOOKS: 'on' }, conversationId: CONV, note: 'resumed' });
    const p = rig.tmux.pane('%1');
    expect(p.argv).toEqual(['claude', '--resume', CONV]);
    expect(p.env.HOOKS).toBe('on');
    expect(a.secretHash).not.toBe(before.hash);
    expect(hashSecret(p.env.NERDR_TAB!)).toBe(a.secretHash);
    expect(a.generation).toBe(before.generation + 1);
    expect(a.arbiter.view().conversationId).toBe(CONV);
    expect(a.note).toBe('resumed');
  });

  it('closeWindow: tmux closes it and the scan that follows forgets it', async () => {
    rig = await startRig((t) => void t.addPane());
    await rig.sup.closeWindow(rig.sup.agents.get('%1')!);
    rig.channel().notify('window-close', '@1');
    await rig.wait(50);
    expect(rig.sup.agents.size).toBe(0);
  });
});

describe('the exit guard (every tmux)', () => {
  const spec = { agent: 'claude', name: 'c', cwd: '/w', session: 'user', argv: ['claude', '$(touch x)'], userArgs: [], callerEnv: {}, env: {}, watched: true };

  it("a window's program runs under the guard; the marker in its output, split anywhere, releases it", async () => {
    rig = await startRig((t) => void (t.version = '3.3a'));
    const w = await rig.sup.createWindow(spec);
    const made = rig.tmux.sent('new-window')[0]!;
    const at = made.indexOf('nerdr-guard');
    expect(made.slice(at - 3, at)).toEqual(['/bin/sh', '-c', EXIT_GUARD_SCRIPT]);
    // the tmux binary and the program are parameters: user text never reaches the script
    expect(made.slice(-2)).toEqual(['claude', '$(touch x)']);
    expect(EXIT_GUARD_SCRIPT).not.toContain('touch');
    rig.channel().output(w.pane, `bye\r\n${EXIT_MARKER.slice(0, 7)}`);
    await settle();
    expect(rig.tmux.sent('wait-for')).toEqual([]);
    rig.channel().output(w.pane, EXIT_MARKER.slice(7));
    await settle();
    expect(rig.tmux.sent('wait-for')).toEqual([['wait-for', '-S', exitChannel(w.pane)]]);
    await rig.sup.respawn(rig.sup.agents.get(w.pane)!, { argv: ['claude'], callerEnv: {}, env: {} });
    expect(rig.tmux.sent('respawn-pane')[0]).toContain('nerdr-guard');
  });

  it('tmux 3.7 too: its check for unread output can miss a last write still in the kernel', async () => {
    rig = await startRig((t) => void (t.version = '3.7c'));
    const w = await rig.sup.createWindow(spec);
    expect(rig.tmux.sent('new-window')[0]).toContain('nerdr-guard');
    rig.channel().output(w.pane, EXIT_MARKER);
    await settle();
    expect(rig.tmux.sent('wait-for')).toEqual([['wait-for', '-S', exitChannel(w.pane)]]);
  });
});

describe('the tmux server it watches', () => {
  it('a lost control client with the same server reconnects; with another server at the socket (kill-server, then a new one) it stops', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: ['❯'] }));
    const server = rig.tmux as unknown as { serverPid: number | null };
    expect(rig.sup.serverPid).toBe(1);
    rig.channel().kill();
    await rig.wait(500);
    expect(rig.sup.stopCause).toBeNull();
    server.serverPid = 2;
    rig.channel().kill();
    await rig.wait(500);
    expect(rig.sup.stopCause).toBe('tmux-ended');
  });
});
