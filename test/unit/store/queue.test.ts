// Message queues on disk (src/store/queue.ts): a file that cannot be used is kept aside and
// reported, never taken for an empty queue; a save that does not reach the disk throws.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QueueStore, QueueWriteError } from '../../../src/store/queue.js';
import { writeFileAtomic } from '../../../src/store/atomic.js';

let dir: string;
const NOW = Date.UTC(2030, 0, 31, 12, 0, 0);
const good = { messages: [{ id: 'a1', text: 'run the tests', queuedAt: NOW, typingAt: null }], stalledAt: null, receipts: [] };

beforeEach(() => {
  dir = path.join(mkdtempSync(path.join(tmpdir(), 'nerdr-queue-')), 'queues');
  mkdirSync(dir);
});
afterEach(() => {
  rmSync(path.dirname(dir), { recursive: true, force: true });
});

const files = () => readdirSync(dir).sort();

describe('receipts', () => {
  const receipt = (id: string, at: number) => ({ id, queuedAt: at, pastedAt: at, startedAt: null, states: [], stalledAt: null, closedAt: at, closed: 'the next message was typed in' });

  it('a queue file from before receipts reads with none; receipts keep the file, the last 20 of the last day', () => {
    writeFileSync(path.join(dir, 'old.json'), JSON.stringify({ messages: [], stalledAt: 5 }));
    expect(new QueueStore(dir).load('old')).toEqual({ queue: { messages: [], stalledAt: 5, receipts: [] }, problem: null });
    const s = new QueueStore(dir, { now: () => NOW });
    const many = Array.from({ length: 25 }, (_, i) => receipt(`r${i}`, NOW - 1000 + i));
    s.save('ag1', { messages: [], stalledAt: null, receipts: [receipt('stale', NOW - 25 * 3600_000), ...many] });
    expect(s.load('ag1').queue.receipts.map((r) => r.id)).toEqual(many.slice(-20).map((r) => r.id));
    s.save('ag1', { messages: [], stalledAt: null, receipts: [receipt('stale', NOW - 25 * 3600_000)] });
    expect(files()).not.toContain('ag1.json');
  });

  it('the receipt of a message still queued is kept however old, and is not counted out by newer ones', () => {
    const s = new QueueStore(dir, { now: () => NOW });
    const waiting = { ...receipt('w', NOW - 30 * 3600_000), pastedAt: null, closedAt: null, closed: null };
    const many = Array.from({ length: 25 }, (_, i) => receipt(`r${i}`, NOW - 1000 + i));
    s.save('ag1', { messages: [{ id: 'w', text: 'waits', queuedAt: NOW - 30 * 3600_000, typingAt: null }], stalledAt: null, receipts: [waiting, ...many] });
    expect(s.load('ag1').queue.receipts.map((r) => r.id)).toEqual(['w', ...many.slice(-19).map((r) => r.id)]);
  });

  it('the typing mark and a receipt\'s text kept for --retry are read back; a file of older nerdr has neither', () => {
    const s = new QueueStore(dir, { now: () => NOW });
    const r = { ...receipt('m1', NOW), closed: 'it may have been typed in (the supervisor stopped while typing it)', retryText: 'hello' };
    s.save('ag1', { messages: [{ id: 'm2', text: 'next', queuedAt: NOW, typingAt: NOW + 1 }], stalledAt: null, receipts: [r] });
    expect(s.load('ag1').queue).toEqual({ messages: [{ id: 'm2', text: 'next', queuedAt: NOW, typingAt: NOW + 1 }], stalledAt: null, receipts: [r] });
    writeFileSync(path.join(dir, 'old.json'), JSON.stringify({ messages: [{ id: 'x', text: 't', queuedAt: 1 }], stalledAt: null, receipts: [receipt('y', NOW)] }));
    const old = s.load('old').queue;
    expect(old.messages).toEqual([{ id: 'x', text: 't', queuedAt: 1, typingAt: null }]);
    expect(old.receipts[0]!.retryText).toBeUndefined();
  });
});

describe('QueueStore.load', () => {
  it('reads a queue it wrote', () => {
    const s = new QueueStore(dir, { now: () => NOW });
    s.save('ag1', good);
    expect(new QueueStore(dir).load('ag1')).toEqual({ queue: good, problem: null });
  });

  it('a missing file is an empty queue, with no problem', () => {
    expect(new QueueStore(dir).load('ag1')).toEqual({ queue: { messages: [], stalledAt: null, receipts: [] }, problem: null });
  });

  const full = JSON.stringify(good);
  it.each([
    ['a truncated file', full.slice(0, full.length - 9), /is not JSON/],
    ['an empty file', '', /is empty/],
    ['a file of white space', '  \n', /white space/],
    ['a garbled file', '\u0000\u0000\ufffd{{', /is not JSON/],
    ['a file of the wrong shape', JSON.stringify({ messages: [{ id: 'a1', queuedAt: 1 }], stalledAt: null }), /not a message queue \(messages\.0\.text/],
    ['a JSON array', '[]', /not a message queue/],
  ])('%s is moved aside byte for byte, reported, and never overwritten', (_what, text, reason) => {
    writeFileSync(path.join(dir, 'ag1.json'), text);
    const s = new QueueStore(dir, { now: () => NOW });
    const r = s.load('ag1');
    expect(r.queue).toEqual({ messages: [], stalledAt: null, receipts: [] });
    expect(r.problem).toMatch(reason);
    expect(r.problem).toContain('ag1.broken-2030-01-31T12-00-00-000Z.json');
    expect(files()).toEqual(['ag1.broken-2030-01-31T12-00-00-000Z.json']);
    expect(readFileSync(path.join(dir, 'ag1.broken-2030-01-31T12-00-00-000Z.json'), 'utf8')).toBe(text);
    expect(s.problems()).toEqual([r.problem]);
    // the next send writes a fresh queue next to it; the broken copy stays as it was
    s.save('ag1', good);
    expect(files()).toEqual(['ag1.broken-2030-01-31T12-00-00-000Z.json', 'ag1.json']);
    expect(readFileSync(path.join(dir, 'ag1.broken-2030-01-31T12-00-00-000Z.json'), 'utf8')).toBe(text);
    // a second broken file at the same time gets its own name
    writeFileSync(path.join(dir, 'ag1.json'), '{');
    expect(s.load('ag1').problem).toContain('ag1.broken-2030-01-31T12-00-00-000Z-1.json');
    expect(s.ids()).toEqual([]);
  });

  it('a file that cannot be read (a folder in its place) is moved aside too', () => {
    mkdirSync(path.join(dir, 'ag1.json'));
    writeFileSync(path.join(dir, 'ag1.json', 'inside'), 'kept');
    const s = new QueueStore(dir, { now: () => NOW });
    const r = s.load('ag1');
    expect(r.problem).toMatch(/cannot be read: EISDIR/);
    expect(readFileSync(path.join(dir, 'ag1.broken-2030-01-31T12-00-00-000Z.json', 'inside'), 'utf8')).toBe('kept');
  });
});

describe('QueueStore.save', () => {
  it('throws a QueueWriteError with the cause and a fix when the disk is full, and leaves the old queue', () => {
    new QueueStore(dir).save('ag1', good);
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const s = new QueueStore(dir, {
      write: () => {
        throw enospc;
      },
    });
    const e = (() => {
      try {
        s.save('ag1', { messages: [...good.messages, { id: 'b2', text: 'more', queuedAt: NOW, typingAt: null }], stalledAt: null, receipts: [] });
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(e).toBeInstanceOf(QueueWriteError);
    expect((e as QueueWriteError).message).toContain(`cannot write ${path.join(dir, 'ag1.json')}: ENOSPC`);
    expect((e as QueueWriteError).fix).toMatch(/free some space on the disk that holds/);
    expect(new QueueStore(dir).load('ag1').queue).toEqual(good);
  });

  it('throws when the queue folder cannot be made (a file in its place)', () => {
    const blocked = path.join(path.dirname(dir), 'blocked');
    writeFileSync(blocked, 'not a folder');
    const s = new QueueStore(blocked);
    expect(() => s.save('ag1', good)).toThrow(QueueWriteError);
    expect(() => s.save('ag1', good)).toThrow(/cannot write .*blocked\/ag1\.json/);
  });
});

describe('writeFileAtomic', () => {
  it('leaves the old file and no temp file when the write fails', () => {
    const f = path.join(dir, 'x.json');
    writeFileAtomic(f, 'old');
    // a folder where the temp's rename target is: rename fails after the temp was written
    rmSync(f);
    mkdirSync(f);
    writeFileSync(path.join(f, 'keep'), '1');
    expect(() => writeFileAtomic(f, 'new')).toThrow();
    expect(files()).toEqual(['x.json']);
    expect(readdirSync(f)).toEqual(['keep']);
  });
});
