// The Messenger's side of queueing: a message is queued only once it is on disk, and a message
// that cannot be typed in exactly is refused, never changed on the way.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QueueStore } from '../../../src/store/queue.js';
import type { WatchedAgent } from '../../../src/supervisor/agent.js';
import { Messenger, invalidUtf8At, undeliverable, undeliverableBytes } from '../../../src/supervisor/messages.js';
import { RpcError } from '../../../src/supervisor/socket/errors.js';

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
    expect((e as RpcError).message).toMatch(/^the message was not queued: cannot write .*ag1\.json: ENOSPC.*; fix: free some space/);
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
