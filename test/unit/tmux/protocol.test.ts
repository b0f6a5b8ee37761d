// The control-mode protocol as pure logic: line splitting, %output decoding, block matching.
// Forged input only; what real tmux writes is checked in client.test.ts.
import { describe, expect, it } from 'vitest';
import { LineSplitter, ProtocolParser, type ProtocolEvent } from '../../../src/tmux/protocol.js';
import { decodeOctal } from '../../../src/tmux/decode.js';

function parse(text: string | Buffer, inBlock?: (line: Buffer) => boolean): ProtocolEvent[] {
  const events: ProtocolEvent[] = [];
  const parser = new ProtocolParser((e) => events.push(e), inBlock);
  const splitter = new LineSplitter();
  splitter.push(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, (l) => parser.line(l));
  return events;
}

function blockLines(e: ProtocolEvent): string[] {
  if (e.type !== 'block') throw new Error(`not a block: ${e.type}`);
  return e.block.lines.map((l) => l.toString('utf8'));
}

describe('LineSplitter', () => {
  it('splits on \\n only, keeps \\r, and joins lines cut between chunks', () => {
    const s = new LineSplitter();
    const lines: string[] = [];
    const on = (l: Buffer): void => void lines.push(l.toString('latin1'));
    s.push(Buffer.from('one\r\ntw'), on);
    expect(lines).toEqual(['one\r']);
    s.push(Buffer.from('o'), on);
    s.push(Buffer.from('\n\nthree\nfo'), on);
    expect(lines).toEqual(['one\r', 'two', '', 'three']);
    s.push(Buffer.from('ur\n'), on);
    expect(lines).toEqual(['one\r', 'two', '', 'three', 'four']);
  });

  it('keeps a UTF-8 sequence cut between chunks intact (bytes, not text)', () => {
    const s = new LineSplitter();
    const bytes = Buffer.from('a🦊b\n', 'utf8');
    const lines: Buffer[] = [];
    for (let i = 0; i < bytes.length; i++) s.push(bytes.subarray(i, i + 1), (l) => lines.push(Buffer.from(l)));
    expect(lines.map((l) => l.toString('utf8'))).toEqual(['a🦊b']);
  });

  it('hands out lines that stay valid after the next push (no aliasing of the rest buffer)', () => {
    const s = new LineSplitter();
    const kept: Buffer[] = [];
    s.push(Buffer.from('abc'), () => undefined);
    s.push(Buffer.from('def\nxyz'), (l) => kept.push(l));
    s.push(Buffer.from('123\n'), (l) => kept.push(l));
    expect(kept.map((l) => l.toString())).toEqual(['abcdef', 'xyz123']);
  });
});

describe('decodeOctal', () => {
  it('decodes every \\ooo escape tmux writes and leaves other bytes raw', () => {
    expect(decodeOctal(Buffer.from('y\\015\\012')).toString('latin1')).toBe('y\r\n');
    expect(decodeOctal(Buffer.from('\\033[1mB\\033[0m')).toString('latin1')).toBe('\x1b[1mB\x1b[0m');
    expect(decodeOctal(Buffer.from('a\\134b')).toString('latin1')).toBe('a\\b');
    expect(decodeOctal(Buffer.from('\\000\\001\\037\\177')).toString('latin1')).toBe('\x00\x01\x1f\x7f');
  });

  it('passes UTF-8 and DEL through as bytes', () => {
    const raw = Buffer.from('é🦊\x7f', 'utf8');
    expect(decodeOctal(raw).equals(raw)).toBe(true);
  });

  it('leaves a backslash that starts no full escape as it is (line end, non-octal digits)', () => {
    expect(decodeOctal(Buffer.from('x\\01')).toString('latin1')).toBe('x\\01');
    expect(decodeOctal(Buffer.from('x\\')).toString('latin1')).toBe('x\\');
    expect(decodeOctal(Buffer.from('\\9ab\\400')).toString('latin1')).toBe('\\9ab\\400');
    expect(decodeOctal(Buffer.from('\\012')).toString('latin1')).toBe('\n'); // exactly at the end
  });

  it('decodes a slice of the line', () => {
    const line = Buffer.from('%output %1 hi\\012');
    expect(decodeOctal(line, 11).toString('latin1')).toBe('hi\n');
  });
});

describe('ProtocolParser: output', () => {
  it('%output gives the pane and the decoded bytes', () => {
    const [e] = parse('%output %12 a\\134b\\015\\012\n');
    expect(e).toEqual({ type: 'output', pane: '%12', data: Buffer.from('a\\b\r\n'), ageMs: undefined });
  });

  it('%output with empty data and UTF-8 split over two lines stays bytes', () => {
    const fox = Buffer.from('🦊', 'utf8');
    const input = Buffer.concat([Buffer.from('%output %1 '), fox.subarray(0, 2), Buffer.from('\n%output %1 '), fox.subarray(2), Buffer.from('\n%output %1 \n')]);
    const ev = parse(input);
    expect(ev).toHaveLength(3);
    const data = Buffer.concat(ev.map((e) => (e.type === 'output' ? e.data : Buffer.alloc(0))));
    expect(data.equals(fox)).toBe(true);
  });

  it('%extended-output: age, extra fields, data after the first " : " (which may itself hold " : ")', () => {
    const ev = parse('%extended-output %3 1234 : x : y\\012\n%extended-output %4 7 future-field : z\n');
    expect(ev[0]).toEqual({ type: 'output', pane: '%3', data: Buffer.from('x : y\n'), ageMs: 1234 });
    expect(ev[1]).toEqual({ type: 'output', pane: '%4', data: Buffer.from('z'), ageMs: 7 });
  });

  it('drops malformed output lines instead of guessing', () => {
    expect(parse('%output %1\n%extended-output %2 5 no-separator\n')).toEqual([]);
  });
});

describe('ProtocolParser: blocks', () => {
  it('matches %end on exact time, number and flags; a forged %end inside the block is content', () => {
    const ev = parse(
      [
        '%begin 1700000000 42 1',
        'line one',
        '%end 1700000000 43 1', // other number
        '%end 1700000001 42 1', // other time
        '%end 1700000000 42 0', // other flags
        '%error 1700000000 41 1',
        '%end 1700000000 42', // truncated
        '%end 1700000000 42 1',
        '',
      ].join('\n'),
    );
    expect(ev).toHaveLength(1);
    expect(ev[0]!.type).toBe('block');
    if (ev[0]!.type !== 'block') return;
    expect(ev[0]!.block).toMatchObject({ time: '1700000000', number: '42', flags: '1', error: false });
    expect(blockLines(ev[0]!)).toEqual([
      'line one',
      '%end 1700000000 43 1',
      '%end 1700000001 42 1',
      '%end 1700000000 42 0',
      '%error 1700000000 41 1',
      '%end 1700000000 42',
    ]);
  });

  it('%error closes the block as an error', () => {
    const [e] = parse('%begin 1 2 1\nparse error: unknown command: x\n%error 1 2 1\n');
    expect(e).toMatchObject({ type: 'block', block: { error: true, flags: '1' } });
    expect(blockLines(e!)).toEqual(['parse error: unknown command: x']);
  });

  it('an empty block has no lines', () => {
    const [e] = parse('%begin 1 2 1\n%end 1 2 1\n');
    expect(blockLines(e!)).toEqual([]);
  });

  it('content that looks like protocol (%output, %exit, notifications) stays content inside a block', () => {
    const ev = parse('%begin 5 6 1\n%output %1 abc\n%exit\n%window-add @3\n%begin 5 7 1\n%end 5 6 1\n');
    expect(ev).toHaveLength(1);
    expect(blockLines(ev[0]!)).toEqual(['%output %1 abc', '%exit', '%window-add @3', '%begin 5 7 1']);
  });

  it('content lines are kept as raw bytes (invalid UTF-8, tabs, a long % line)', () => {
    const long = '%' + 'x'.repeat(100);
    const input = Buffer.concat([Buffer.from('%begin 1 1 1\n'), Buffer.from([0xff, 0xfe, 0x09, 0x41]), Buffer.from(`\n${long}\n%end 1 1 1\n`)]);
    const [e] = parse(input);
    if (e?.type !== 'block') throw new Error('no block');
    expect(e.block.lines[0]!.equals(Buffer.from([0xff, 0xfe, 0x09, 0x41]))).toBe(true);
    expect(e.block.lines[1]!.toString()).toBe(long);
  });

  it('flags-0 blocks (tmux\'s own: the attach, hooks) are reported with their flags for the client to skip', () => {
    const ev = parse('%begin 1 1 0\nhooked\n%end 1 1 0\n%begin 1 2 1\nours\n%end 1 2 1\n');
    expect(ev.map((e) => (e.type === 'block' ? e.block.flags : e.type))).toEqual(['0', '1']);
  });

  it('output and notifications between blocks are events of their own', () => {
    const ev = parse('%begin 1 1 1\n%end 1 1 1\n%output %1 x\n%window-add @2\n%begin 1 2 1\n%end 1 2 1\n');
    expect(ev.map((e) => e.type)).toEqual(['block', 'output', 'notification', 'block']);
  });

  it('inBlockNotification pulls %pause out of a block (tmux 3.3a prints it inside refresh-client -A replies)', () => {
    const ev = parse('%begin 1 3 1\n%pause %4\nkept\n%end 1 3 1\n', (l) => /^%pause /.test(l.toString()));
    expect(ev[0]).toEqual({ type: 'notification', name: 'pause', args: '%4' });
    expect(blockLines(ev[1]!)).toEqual(['kept']);
  });
});

describe('ProtocolParser: notifications', () => {
  it('splits name and arguments; UTF-8 arguments decode as text', () => {
    const ev = parse('%session-changed $0 user\n%window-renamed @3 🦊 a b\n%sessions-changed\n');
    expect(ev).toEqual([
      { type: 'notification', name: 'session-changed', args: '$0 user' },
      { type: 'notification', name: 'window-renamed', args: '@3 🦊 a b' },
      { type: 'notification', name: 'sessions-changed', args: '' },
    ]);
  });

  it('%exit with and without a reason', () => {
    expect(parse('%exit\n')).toEqual([{ type: 'exit', reason: '' }]);
    expect(parse('%exit detached (from session x)\n')).toEqual([{ type: 'exit', reason: 'detached (from session x)' }]);
  });

  it('%subscription-changed keeps everything after the name as args', () => {
    const [e] = parse('%subscription-changed nerdr-p $1 @2 1 %2 : 1|3|0\n');
    expect(e).toEqual({ type: 'notification', name: 'subscription-changed', args: 'nerdr-p $1 @2 1 %2 : 1|3|0' });
  });

  it('lines that are not protocol outside a block are ignored', () => {
    expect(parse('garbage\n\n')).toEqual([]);
  });
});
