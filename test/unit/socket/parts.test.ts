import { describe, expect, it } from 'vitest';
import { parseU64, rawValueAt, stringifyExact } from '../../../src/supervisor/socket/exact-json.js';
import { ByteBudget, LineReader } from '../../../src/supervisor/socket/line-reader.js';
import { sanitize, stripControl } from '../../../src/supervisor/socket/sanitize.js';

describe('rawValueAt', () => {
  it('finds nested values, skipping strings with quotes, escapes and brackets', () => {
    const text = '{"a":"x\\"}{[","params":{"s":"\\\\","arr":[1,{"seq":2}],"seq":  18446744073709551615 }}';
    expect(rawValueAt(text, ['params', 'seq'])).toBe('18446744073709551615');
    expect(rawValueAt(text, ['params', 'missing'])).toBeUndefined();
    expect(rawValueAt(text, ['a', 'seq'])).toBeUndefined();
    expect(rawValueAt('{"params":{}}', ['params', 'seq'])).toBeUndefined();
  });
  it('uses the last duplicate key at every level', () => {
    expect(rawValueAt('{"params":{"seq":1},"params":{"seq":2}}', ['params', 'seq'])).toBe('2');
    expect(rawValueAt('{"params":{"seq":1},"params":{}}', ['params', 'seq'])).toBeUndefined();
  });
});

describe('parseU64', () => {
  it.each([
    ['0', 0n],
    ['18446744073709551615', 18446744073709551615n],
    ['null', null],
    ['18446744073709551616', undefined],
    ['01', undefined],
    ['-0', undefined],
    ['1e2', undefined],
    ['1.0', undefined],
  ])('%s → %s', (raw, want) => expect(parseU64(raw)).toBe(want));
});

describe('stringifyExact', () => {
  it('writes bigints as integers', () => {
    expect(stringifyExact({ a: 2n ** 64n - 1n, b: 'x' })).toBe('{"a":18446744073709551615,"b":"x"}');
  });
});

describe('LineReader', () => {
  it('splits lines across chunks and decodes split UTF-8', () => {
    const r = new LineReader(100);
    const bytes = Buffer.from('héllo\nwörld\n');
    const out = [...r.push(bytes.subarray(0, 2)), ...r.push(bytes.subarray(2, 9)), ...r.push(bytes.subarray(9))];
    expect(out).toEqual([
      { kind: 'line', text: 'héllo' },
      { kind: 'line', text: 'wörld' },
    ]);
  });
  it('refuses as soon as a line crosses the limit and holds nothing after', () => {
    const r = new LineReader(10);
    expect(r.push(Buffer.from('12345'))).toEqual([]);
    expect(r.push(Buffer.from('678901'))).toEqual([{ kind: 'too_long' }]);
    expect(r.buffered).toBe(0);
    expect(r.push(Buffer.from('\nok\n'))).toEqual([]);
  });
});

describe('LineReader and its budget', () => {
  it('holds a partial line in one buffer that doubles, taken from the shared budget, given back when done', () => {
    const budget = new ByteBudget(64 * 1024);
    const a = new LineReader(32 * 1024, budget);
    const b = new LineReader(32 * 1024, budget);
    for (let i = 0; i < 5000; i++) expect(a.push(Buffer.from('x'))).toEqual([]);
    expect(a.buffered).toBe(5000);
    expect(a.reserved).toBe(8192);
    expect(b.push(Buffer.alloc(20_000, 0x79))).toEqual([]);
    expect(budget.used).toBe(8192 + 20_000);
    expect(a.push(Buffer.from('!\nnext'))).toEqual([{ kind: 'line', text: 'x'.repeat(5000) + '!' }]);
    expect(a.reserved).toBe(4096); // "next" is held in a fresh, small buffer
    expect(budget.used).toBe(4096 + 20_000);
    b.release();
    a.release();
    expect(budget.used).toBe(0);
    expect(a.push(Buffer.from('\n'))).toEqual([{ kind: 'line', text: '' }]);
  });

  it('says over_budget when the shared budget cannot hold the partial line, and holds nothing after', () => {
    const budget = new ByteBudget(10_000);
    const a = new LineReader(32 * 1024, budget);
    const b = new LineReader(32 * 1024, budget);
    expect(a.push(Buffer.alloc(6000, 0x61))).toEqual([]);
    expect(b.push(Buffer.alloc(6000, 0x62))).toEqual([{ kind: 'over_budget' }]);
    expect(b.reserved).toBe(0);
    expect(b.push(Buffer.from('ok\n'))).toEqual([]);
    expect(budget.used).toBe(6000);
    // a whole line in one chunk needs nothing from the budget
    const c = new LineReader(32 * 1024, budget);
    expect(c.push(Buffer.from('{"a":1}\n'))).toEqual([{ kind: 'line', text: '{"a":1}' }]);
  });

  it('refuses invalid UTF-8 in a held line and gives its bytes back', () => {
    const budget = new ByteBudget(1 << 20);
    const r = new LineReader(1 << 16, budget);
    expect(r.push(Buffer.from([0x61, 0xc3]))).toEqual([]);
    expect(r.push(Buffer.from([0x28, 0x0a]))).toEqual([{ kind: 'invalid_utf8' }]);
    expect(budget.used).toBe(0);
  });
});

describe('sanitize', () => {
  it('cleans strings and keys recursively and keeps __proto__ as data', () => {
    const v = sanitize(JSON.parse('{"k\\u0001":["a\\tb",{"__proto__":"x\\u009b"}],"n":1,"z":null}')) as Record<string, unknown>;
    expect(v).toEqual({ k: ['a b', { ['__proto__']: 'x' }], n: 1, z: null });
    expect(Object.getPrototypeOf((v.k as unknown[])[1])).toBe(Object.prototype);
    expect(stripControl('clean')).toBe('clean');
  });
});
