// The Messenger's side of queueing: a message is queued only once it is on disk, a message
// that cannot be typed in exactly is refused, never changed on the way, and none is typed in
// twice (a supervisor killed while typing it, a paste whose answer was lost, restore).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QueueStore, type Receipt } from '../../../src/store/queue.js';
import type { WatchedAgent } from '../../../src/supervisor/agent.js';
import { Messenger, invalidUtf8At, undeliverable, undeliverableBytes } from '../../../src/supervisor/messages.js';
import { RpcError } from '../../../src/supervisor/socket/errors.js';
import { writeFileAtomic } from '../../../src/store/atomic.js';
import { FakeTime, settle, words } from './harness.js';

let dir: string;
beforeEach(() => {
  dir = path.join(mkdtempSync(path.join(tmpdir(), 'nerdr-msg-')), 'queues');
});
afterEach(() => {
  rmSync(path.dirname(dir), { recursive: true, force: true });
});

function agent(state = 'working'): WatchedAgent {
  return { id: 'ag1', name: 'api', paneId: '%1', windowId: '@1', agent: 'demo', state, dead: false, inMode: false, seeding: false } as unknown as WatchedAgent;
}

function messenger(store: QueueStore) {
  const lines: string[][] = [];
  const logs: string[] = [];
  const m = new Messenger({
    sendLine: (cmds) => void lines.push(cmds),
    log: (level, msg) => void logs.push(`${level} ${msg}`),
    store,
    clock: { now: () => 1, after: () => ({ cancel: () => undefined }) },
    changed: () => undefined,
  });
  return { m, lines, logs };
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}

describe('Messenger.enqueueFirst (on_limit = "resume")', () => {
  it('goes before every message waiting, on disk; after a message being typed in', () => {
    const { m } = messenger(new QueueStore(dir));
    const a = agent('working');
    m.enqueue(a, 'one');
    m.enqueue(a, 'two');
    expect(m.enqueueFirst(a, 'continue').position).toBe(1);
    expect(new QueueStore(dir).load('ag1').queue.messages.map((x) => x.text)).toEqual(['continue', 'one', 'two']);
    m.queue(a).messages[0]!.typingAt = 5;
    expect(m.enqueueFirst(a, 'again').position).toBe(2);
    expect(m.queue(a).messages.map((x) => x.text)).toEqual(['continue', 'again', 'one', 'two']);
    expect(() => m.enqueueFirst(a, 'bad\u0000')).toThrow(RpcError);
  });

  it('hold: nothing is typed into the window until released (the message about to go first is being saved)', () => {
    const { m, lines } = messenger(new QueueStore(dir));
    const a = agent('idle');
    const release = m.hold(a);
    m.enqueue(a, 'queued before');
    expect(lines).toEqual([]);
    m.enqueueFirst(a, 'continue');
    expect(lines).toEqual([]);
    release();
    release(); // once
    expect(lines).toHaveLength(1); // the pane check before the paste of the first message
    expect(m.queue(a).messages.map((x) => x.text)).toEqual(['continue', 'queued before']);
  });
});

describe('Messenger.enqueue', () => {
  it('a message that cannot be saved (full disk) is refused with the cause and a fix, and is not queued or typed', () => {
    const store = new QueueStore(dir, {
      write: () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      },
    });
    const { m, lines, logs } = messenger(store);
    const a = agent('idle');
    const e = thrown(() => m.enqueue(a, 'hello'));
    expect(e).toBeInstanceOf(RpcError);
    expect((e as RpcError).code).toBe('queue_write_failed');
    expect((e as RpcError).message).toMatch(/^the message was not queued: cannot write .*ag1\.json: ENOSPC/);
    expect((e as RpcError).message).not.toMatch(/fix:/); // the fix travels in its own field
    expect((e as RpcError).fix).toMatch(/free some space/);
    expect(m.queue(a).messages).toEqual([]);
    expect(m.suffix(a)).toBe('');
    expect(lines).toEqual([]); // nothing pasted
    expect(logs.join('\n')).toMatch(/error api: a message was refused/);
  });

  it('a queued message is on disk when enqueue returns', () => {
    const { m } = messenger(new QueueStore(dir));
    const r = m.enqueue(agent(), 'hello');
    expect(r.position).toBe(1);
    expect(new QueueStore(dir).load('ag1').queue.messages.map((x) => x.text)).toEqual(['hello']);
  });

  it('tells the next sender that the old queue file was broken and kept aside', () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'ag1.json'), '{"messages":[{"id":"x","te');
    const { m, logs } = messenger(new QueueStore(dir));
    const a = agent();
    expect(m.suffix(a)).toBe('');
    expect(logs.join('\n')).toMatch(/warn api: the message queue .*ag1\.json is not JSON .*kept as .*ag1\.broken-/);
    const r = m.enqueue(a, 'hello');
    expect(r.warning).toMatch(/is not JSON .*kept as .*ag1\.broken-/);
    expect(m.enqueue(a, 'again').warning).toBeUndefined();
  });

  it.each([
    ['a NUL', 'a\0b', /NUL byte at byte offset 1/],
    ['a lone surrogate', 'é\ud800x', /lone UTF-16 surrogate \(U\+D800\) at byte offset 2/],
    ['the paste end marker', 'x\x1b[201~rm -rf', /bracketed-paste end sequence ESC \[201~ at byte offset 1/],
  ])('refuses a message with %s (invalid_message) and queues nothing', (_what, text, why) => {
    const { m } = messenger(new QueueStore(dir));
    const e = thrown(() => m.enqueue(agent(), text));
    expect((e as RpcError).code).toBe('invalid_message');
    expect((e as RpcError).message).toMatch(why);
    expect(new QueueStore(dir).load('ag1').queue.messages).toEqual([]);
  });

  it('keeps line breaks, escapes and non-ASCII text as they are', () => {
    expect(undeliverable('line\r\nnext \x1b[31mred\x1b[0m ✓ 𝄞 \x7f')).toBeNull();
  });
});

describe('undeliverableBytes', () => {
  it.each([
    ['a\0b', /NUL byte at byte offset 1/],
    ['ok \xff rest', /not valid UTF-8: the bytes at byte offset 3 \(0xff 0x20 0x72 0x65…\)/],
  ])('%j', (latin1, why) => expect(undeliverableBytes(Buffer.from(latin1, 'latin1'))).toMatch(why));

  it('accepts UTF-8, finds the first bad byte otherwise', () => {
    expect(undeliverableBytes(Buffer.from('héllo ✓ 𝄞\n'))).toBeNull();
    const cases: [number[], number][] = [
      [[0x61, 0xc3], 1], // truncated at the end
      [[0xc0, 0x80], 0], // overlong NUL
      [[0xe0, 0x80, 0x80], 0], // overlong
      [[0x61, 0xed, 0xa0, 0x80], 1], // an encoded surrogate
      [[0xf4, 0x90, 0x80, 0x80], 0], // above U+10FFFF
      [[0xe2, 0x9c, 0x93, 0x80], 3], // a stray continuation byte
      [[0xe2, 0x9c, 0x41], 0],
      [[0xf0, 0x9d, 0x84, 0x9e], -1],
    ];
    for (const [bytes, at] of cases) expect([bytes, invalidUtf8At(Uint8Array.from(bytes))]).toEqual([bytes, at]);
  });
});

describe('a message is typed in at most once', () => {
  type Answer = 'ok' | 'lost' | 'lostUnrun' | 'refused' | 'hold' | 'unsent';
  /** What the tmux server keeps across supervisors: the pane's @nerdr_typed. */
  interface Server {
    typed: string;
  }
  /**
   * A Messenger whose tmux answers the pane check, and the paste line (the window's
   * @nerdr_typed, set-buffer, paste-buffer) as `paste` says: `hold` runs it and never answers
   * (the supervisor dies before tmux answers), `unsent` never reaches tmux (the supervisor dies
   * before the line is written), `lost` runs it and answers as a control client that closed,
   * `lostUnrun` answers so without running it (the client closed before tmux read the line),
   * `refused` as tmux refusing the first command (nothing after it runs). The pane check reads
   * the pane's @nerdr_typed. Each Messenger made
   * here is one supervisor life on one tmux server; a "crash" is simply making the next one on
   * the same folder and server.
   */
  function life(store: QueueStore, time: FakeTime, paste: () => Answer = () => 'ok', server: Server = { typed: '' }) {
    const pastes: string[] = [];
    const logs: string[] = [];
    const receipts: Receipt[] = [];
    const m = new Messenger({
      sendLine: (cmds, done) => {
        const w = cmds.map(words);
        if (w[0]![0] === 'display') {
          expect(w[0]!.at(-1)).toBe('#{pane_dead}|#{pane_in_mode}|#{pane_input_off}|#{@nerdr_typed}');
          return queueMicrotask(() => done([{ ok: true, skipped: false, lines: [Buffer.from(`0|0|0|${server.typed}`)] }]));
        }
        if (w[0]![0] !== 'set-option' || w[1]?.[0] !== 'set-buffer' || w[2]?.[0] !== 'paste-buffer') return queueMicrotask(() => done(cmds.map(() => ({ ok: true, skipped: false, lines: [] }))));
        expect(w[0]!.slice(1)).toEqual(['-p', '-t', '%1', '@nerdr_typed', expect.stringMatching(/^[0-9a-f]{12}$/)]);
        const how = paste();
        if (how === 'unsent') return;
        const closed = { ok: false, skipped: true, lines: [Buffer.from('control client closed')] };
        if (how === 'lostUnrun') return queueMicrotask(() => done(cmds.map(() => closed)));
        if (how === 'refused') return queueMicrotask(() => done([{ ok: false, skipped: false, lines: [Buffer.from('no window')] }, { ok: false, skipped: true, lines: [] }, { ok: false, skipped: true, lines: [] }]));
        server.typed = w[0]!.at(-1)!;
        pastes.push(w[1]!.at(-1)!);
        if (how === 'hold') return;
        queueMicrotask(() => done(how === 'lost' ? cmds.map(() => closed) : cmds.map(() => ({ ok: true, skipped: false, lines: [] }))));
      },
      log: (level, msg) => void logs.push(`${level} ${msg}`),
      store,
      clock: time,
      changed: () => undefined,
      receipt: (_a, r) => void receipts.push(r),
    });
    return { m, pastes, logs, receipts };
  }
  /** An idle window, as a supervisor finds it on `server` (its pane's @nerdr_typed). */
  const idle = (server: Server = { typed: '' }): WatchedAgent =>
    ({ ...agent('idle'), typedWhenFound: server.typed, arbiter: { view: () => ({ quiet: null }) } }) as unknown as WatchedAgent;
  const onDisk = () => new QueueStore(dir).load('ag1').queue;
  /** A supervisor life on a fresh tmux server, its pastes answered in turn as `answers` says, then 'ok'. */
  function oneLife(...answers: Answer[]) {
    const time = new FakeTime();
    const server: Server = { typed: '' };
    let n = 0;
    const s = life(new QueueStore(dir, { now: time.now }), time, () => answers[n++] ?? 'ok', server);
    return { time, server, s, a: idle(server) };
  }
  /** oneLife after it queued two messages, its first paste answered as `paste` says. */
  async function queuedTwo(paste: Answer) {
    const { time, server, s: first, a } = oneLife(paste);
    const { id } = first.m.enqueue(a, 'run the tests');
    first.m.enqueue(a, 'then the lint');
    await settle();
    return { time, server, first, id };
  }

  it('killed after tmux ran the paste line, before its answer was recorded: the pane says it is in; not typed again, its turn is waited for', async () => {
    const { time, server, first, id } = await queuedTwo('hold');
    // the mark is on disk before tmux was given the paste
    expect(first.pastes).toEqual(['run the tests']);
    expect(onDisk().messages.map((x) => [x.id === id, x.typingAt, x.tmuxMark])).toEqual([[true, time.now(), true], [false, null, undefined]]);
    expect(server.typed).toBe(id);
    const markedAt = time.now();
    // kill -9 here; the revived supervisor loads the queue
    time.advance(300);
    const second = life(new QueueStore(dir, { now: time.now }), time, () => 'ok', server);
    const b = idle(server);
    expect(second.m.suffix(b)).toBe(' ✉2');
    second.m.tryDeliver(b);
    await settle();
    expect(second.pastes).toEqual([]);
    expect(second.m.receipt(id)!.receipt.pastedAt).toBe(markedAt);
    expect(second.logs.join('\n')).toMatch(/info api: message .* was typed in by the supervisor before, which stopped before its turn/);
    // its turn comes: the rest goes on, and the first is still typed in once
    second.m.promptSubmitted(b);
    second.m.tryDeliver(b);
    await settle();
    expect(second.pastes).toEqual(['then the lint']);
    expect([...first.pastes, ...second.pastes]).toEqual(['run the tests', 'then the lint']);
  });

  it('killed after the mark, before the paste line reached tmux: nothing was typed, and the next supervisor types it in once', async () => {
    const { time, server, first, id } = await queuedTwo('unsent');
    expect(first.pastes).toEqual([]);
    expect(onDisk().messages[0]!.typingAt).toBe(time.now());
    expect(server.typed).toBe('');
    // the pane's @nerdr_typed names an older message, typed in before
    server.typed = 'a0a0a0a0a0a0';
    time.advance(300);
    const second = life(new QueueStore(dir, { now: time.now }), time, () => 'ok', server);
    const b = idle(server);
    expect(second.m.suffix(b)).toBe(' ✉2');
    expect(second.logs.join('\n')).toMatch(/info api: message .* was being typed in when the supervisor before stopped; tmux never took its paste, so it goes in now/);
    second.m.tryDeliver(b);
    await settle();
    expect(second.pastes).toEqual(['run the tests']);
    expect(second.m.receipt(id)!.receipt).toMatchObject({ pastedAt: time.now(), closedAt: null });
    expect(server.typed).toBe(id);
  });

  it('a mark of older nerdr (its paste set nothing in tmux) may have been typed: not typed again, its receipt says so, the rest waits for a visit', async () => {
    const time = new FakeTime();
    const store = new QueueStore(dir, { now: time.now });
    const receipt = (id: string): Receipt => ({ id, queuedAt: 1, pastedAt: null, startedAt: null, states: [], stalledAt: null, closedAt: null, closed: null });
    store.save('ag1', {
      messages: [{ id: 'aaaaaaaaaaaa', text: 'run the tests', queuedAt: 1, typingAt: 2 }, { id: 'bbbbbbbbbbbb', text: 'then the lint', queuedAt: 1, typingAt: null }],
      stalledAt: null,
      receipts: [receipt('aaaaaaaaaaaa'), receipt('bbbbbbbbbbbb')],
    });
    const s = life(store, time);
    const b = idle();
    expect(s.m.suffix(b)).toBe(' ✉1⏸');
    s.m.tryDeliver(b);
    await settle();
    expect(s.pastes).toEqual([]);
    const r = s.m.receipt('aaaaaaaaaaaa')!.receipt;
    expect(r).toMatchObject({ pastedAt: null, closedAt: time.now(), retryText: 'run the tests' });
    expect(r.closed).toBe('it may have been typed in (the supervisor stopped while typing it); not typed again: `nerdr send --retry aaaaaaaaaaaa` queues it again');
    expect(onDisk().messages.map((x) => x.text)).toEqual(['then the lint']);
    expect(s.logs.join('\n')).toMatch(/warn api: message .* may have been typed in .*the rest waits for a visit/);
    s.m.visited(b);
    await settle();
    expect(s.pastes).toEqual(['then the lint']);
  });

  it('killed after tmux took the paste: not typed again; its turn is waited for as before, and when it comes the queue goes on', async () => {
    const { time, first, id } = await queuedTwo('ok');
    expect(first.pastes).toEqual(['run the tests']);
    expect(onDisk().receipts[0]!.pastedAt).toBe(time.now());
    // kill -9 here (Enter may or may not have gone); the turn starts while none runs
    const second = life(new QueueStore(dir, { now: time.now }), time);
    const b = idle();
    second.m.tryDeliver(b);
    await settle();
    expect(second.pastes).toEqual([]);
    second.m.promptSubmitted(b);
    expect(second.m.receipt(id)!.receipt.startedAt).toBe(time.now());
    second.m.tryDeliver(b);
    await settle();
    expect(second.pastes).toEqual(['then the lint']);
  });

  it('killed after tmux took the paste, its turn came and went while none ran: the facts say so and the queue goes on', async () => {
    const { time, id } = await queuedTwo('ok');
    const pastedAt = onDisk().receipts[0]!.pastedAt!;
    // kill -9; the agent took the message and finished its turn before the next supervisor
    time.advance(2000);
    const second = life(new QueueStore(dir, { now: time.now }), time);
    const b = { ...idle(), state: 'done', unknowable: null, arbiter: { view: () => ({ quiet: null }), lastTurnAt: pastedAt + 400 } } as unknown as WatchedAgent;
    second.m.stateChanged(b);
    await settle();
    expect(second.m.receipt(id)!.receipt.startedAt).toBe(time.now());
    expect(second.pastes, second.logs.join('\n')).toEqual(['then the lint']);
  });

  it('killed after tmux took the paste, its turn known only when the wait ends (no state change after): the queue goes on', async () => {
    const { time, id } = await queuedTwo('ok');
    const pastedAt = onDisk().receipts[0]!.pastedAt!;
    const second = life(new QueueStore(dir, { now: time.now }), time);
    const arbiter = { view: () => ({ quiet: null }), lastTurnAt: null as number | null };
    const b = { ...idle(), state: 'done', unknowable: null, arbiter } as unknown as WatchedAgent;
    second.m.stateChanged(b);
    await settle();
    expect(second.pastes).toEqual([]);
    // the window's facts come back after the load: its last turn began after the paste, and it
    // is done already, so no state change follows
    arbiter.lastTurnAt = pastedAt + 400;
    time.advance(5001);
    await settle();
    expect(second.m.receipt(id)!.receipt.startedAt).toBe(time.now() - 1);
    expect(second.pastes, second.logs.join('\n')).toEqual(['then the lint']);
  });

  it('killed after tmux took the paste, and no turn follows: it stalls as any unanswered message, never typed again', async () => {
    const { time, id } = await queuedTwo('ok');
    const second = life(new QueueStore(dir, { now: time.now }), time);
    const b = idle();
    second.m.tryDeliver(b);
    await settle();
    time.advance(5001);
    await settle();
    expect(second.pastes).toEqual([]);
    expect(second.m.receipt(id)!.receipt.stalledAt).toBe(time.now() - 1);
    expect(onDisk().messages.map((x) => x.text)).toEqual(['then the lint']);
    expect(onDisk().stalledAt).not.toBeNull();
  });

  it('a paste whose answer was lost (the control client closed), which tmux ran: the pane says so; not typed again, its turn is waited for', async () => {
    const { s, a } = oneLife('lost', 'lost');
    const { id } = s.m.enqueue(a, 'once');
    s.m.enqueue(a, 'then this');
    await settle();
    expect(s.pastes).toEqual(['once']);
    expect(s.logs.join('\n')).toMatch(/warn api: tmux's answer to the paste of message .* was lost \(control client closed\); the pane will say whether it went in/);
    // it stays marked, and is neither typed again nor given up
    expect(s.m.queue(a).messages.map((x) => [x.text, x.typingAt !== null])).toEqual([['once', true], ['then this', false]]);
    expect((thrown(() => s.m.cancel(id, [a])) as RpcError).code).toBe('not_queued');
    s.m.tryDeliver(a);
    await settle();
    expect(s.pastes).toEqual(['once']);
    expect(s.m.receipt(id)!.receipt.pastedAt).not.toBeNull();
    expect(s.logs.join('\n')).toMatch(/info api: message .* was typed in \(the pane says so; tmux's answer to the paste was lost\); waiting 5 s/);
    // its receipt is the one followed now
    expect(s.m.receipt(id)!.receipt.closedAt).toBeNull();
    // its turn comes: the queue goes on
    s.m.promptSubmitted(a);
    s.m.tryDeliver(a);
    await settle();
    expect(s.pastes).toEqual(['once', 'then this']);
  });

  it('a paste whose answer was lost, which tmux ran: the turn of the message before is closed, as after any paste', async () => {
    const { time, s, a } = oneLife('ok', 'lost');
    const before = s.m.enqueue(a, 'zero').id;
    await settle();
    time.advance(1000); // Enter goes in
    await settle();
    s.m.promptSubmitted(a);
    expect(s.m.receipt(before)!.receipt.closedAt).toBeNull();
    const { id } = s.m.enqueue(a, 'once');
    await settle();
    s.m.tryDeliver(a);
    await settle();
    expect(s.pastes).toEqual(['zero', 'once']);
    expect(s.m.receipt(before)!.receipt.closed).toBe('the next message was typed in');
    expect(s.m.receipt(id)!.receipt).toMatchObject({ closedAt: null });
    expect(s.m.receipt(id)!.receipt.pastedAt).not.toBeNull();
  });

  it('a paste whose answer was lost, which tmux never ran: typed in once, on the next try', async () => {
    const { server, s, a } = oneLife('lostUnrun');
    const { id } = s.m.enqueue(a, 'once');
    await settle();
    expect(s.pastes).toEqual([]);
    s.m.tryDeliver(a);
    await settle();
    expect(s.pastes).toEqual(['once']);
    expect(s.logs.join('\n')).toMatch(/info api: message .*: tmux never ran its paste \(its answer was lost\), so it goes in now/);
    expect(s.m.receipt(id)!.receipt).toMatchObject({ closedAt: null });
    expect(server.typed).toBe(id);
  });

  it('a paste tmux refused typed nothing: the mark is cleared and it goes in later, once', async () => {
    const { s, a } = oneLife('refused');
    s.m.enqueue(a, 'again');
    await settle();
    expect(s.pastes).toEqual([]);
    expect(onDisk().messages[0]!.typingAt).toBeNull();
    s.m.tryDeliver(a);
    await settle();
    expect(s.pastes).toEqual(['again']);
  });

  it('a mark that cannot be written: nothing is typed, the queue waits for a visit', async () => {
    const time = new FakeTime();
    let full = false;
    const store = new QueueStore(dir, {
      now: time.now,
      write: (file, data) => {
        if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        writeFileAtomic(file, data);
      },
    });
    const s = life(store, time, () => 'ok');
    const a = { ...idle(), state: 'working' } as unknown as { state: string } & WatchedAgent;
    s.m.enqueue(a, 'not yet');
    full = true;
    a.state = 'idle';
    s.m.tryDeliver(a);
    await settle();
    expect(s.pastes).toEqual([]);
    expect(s.m.queue(a).stalledAt).not.toBeNull();
    expect(s.m.queue(a).messages[0]!.typingAt).toBeNull();
    expect(s.logs.join('\n')).toMatch(/error api: message .* not typed in: the queue cannot be saved: cannot write .*ENOSPC.*the queue waits for a visit/);
  });

  it('--retry queues the text again as a new message, once; a message that was confirmed cannot be retried', async () => {
    const time = new FakeTime();
    // a mark of older nerdr: its message may have been typed
    const id = 'aaaaaaaaaaaa';
    new QueueStore(dir, { now: time.now }).save('ag1', {
      messages: [{ id, text: 'maybe typed', queuedAt: 1, typingAt: 2 }],
      stalledAt: null,
      receipts: [{ id, queuedAt: 1, pastedAt: null, startedAt: null, states: [], stalledAt: null, closedAt: null, closed: null }],
    });
    const second = life(new QueueStore(dir, { now: time.now }), time);
    const b = idle();
    second.m.queue(b);
    const again = second.m.retry(id, (agentId) => (agentId === 'ag1' ? b : null));
    expect(again.id).not.toBe(id);
    await settle();
    expect(second.pastes).toEqual(['maybe typed']);
    const old = second.m.receipt(id)!.receipt;
    expect(old.retryText).toBeNull();
    expect(old.closed).toMatch(new RegExp(`; queued again as ${again.id}$`));
    expect((thrown(() => second.m.retry(id, () => b)) as RpcError).code).toBe('not_retryable');
    expect((thrown(() => second.m.retry('nope', () => b)) as RpcError).code).toBe('unknown_message');
  });

  describe('restore queues a saved message again only once', () => {
    it('not when its id was typed in, in the queue file of the window it was saved from; nor twice for one window; nor while another window has it', async () => {
      const time = new FakeTime();
      const store = new QueueStore(dir, { now: time.now });
      // the old window's file: "done" was typed in, "waits" never was
      store.save('old', {
        messages: [{ id: 'waits', text: 'still waiting', queuedAt: 1, typingAt: null }],
        stalledAt: null,
        receipts: [
          { id: 'done', queuedAt: 1, pastedAt: 2, startedAt: 3, states: [], stalledAt: null, closedAt: 4, closed: 'the next message was typed in' },
          { id: 'waits', queuedAt: 1, pastedAt: null, startedAt: null, states: [], stalledAt: null, closedAt: null, closed: null },
        ],
      });
      const s = life(store, time, () => 'hold');
      const a = { ...idle(), state: 'working' } as unknown as WatchedAgent;
      expect(s.m.requeue(a, { id: 'done', text: 'typed before' })).toBe('it was typed in already');
      expect(s.m.requeue(a, { id: 'waits', text: 'still waiting' })).toBeNull();
      expect(s.m.requeue(a, { id: 'waits', text: 'still waiting' })).toBe('it is queued for this window already');
      // it moved, with its receipt: the gone window's file no longer holds it
      expect(store.load('old').queue.messages).toEqual([]);
      expect(s.m.receipt('waits')).toMatchObject({ agentId: 'ag1', receipt: { queuedAt: 1 } });
      // a second restored window (the session saved twice) does not get it
      const other = { ...a, id: 'ag2', name: 'web' } as unknown as WatchedAgent;
      expect(s.m.requeue(other, { id: 'waits', text: 'still waiting' })).toBe('it is still queued for another window');
      expect(s.m.requeue(other, { id: 'fresh', text: 'new to all' })).toBeNull();
      expect(s.m.queue(other).messages.map((x) => x.id)).toEqual(['fresh']);
    });

    it('not when it was being typed when its supervisor stopped', () => {
      const time = new FakeTime();
      const store = new QueueStore(dir, { now: time.now });
      store.save('old', { messages: [{ id: 'typing', text: 'x', queuedAt: 1, typingAt: 2 }], stalledAt: null, receipts: [] });
      const s = life(store, time);
      expect(s.m.requeue({ ...idle(), state: 'working' } as unknown as WatchedAgent, { id: 'typing', text: 'x' })).toMatch(/may have been typed in already/);
    });
  });
});
