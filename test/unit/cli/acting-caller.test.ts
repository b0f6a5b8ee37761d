// Every request that acts carries its caller: a request of a method the agent limits apply to
// (docs/orchestration.md), made anywhere in the CLI or the dashboard, names `caller` in its params.
// A request without it would come from a person's shell as far as the supervisor knows: the side
// door that `nerdr dash` and `nerdr demo --stop` were.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..', 'src');
const ACTING = ['nerdr.new', 'nerdr.send', 'nerdr.retry', 'nerdr.stop-agent', 'nerdr.respawn', 'nerdr.stop', 'nerdr.restore'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

/** Each place outside the supervisor that names an acting method, and the statement it is in (to its first `;` or end of line). */
function requests(): { where: string; method: string; statement: string }[] {
  const out: { where: string; method: string; statement: string }[] = [];
  for (const file of files(ROOT).filter((f) => !f.includes(`${path.sep}supervisor${path.sep}`) && !f.includes(`${path.sep}protocol${path.sep}`))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/'(nerdr\.[a-z-]+)'/g)) {
      if (!ACTING.includes(m[1]!)) continue;
      const line = text.slice(0, m.index).split('\n').length;
      const end = text.indexOf(';', m.index);
      out.push({ where: `${path.relative(ROOT, file)}:${line}`, method: m[1]!, statement: text.slice(m.index, end < 0 ? undefined : end) });
    }
  }
  return out;
}

describe('every acting request carries its caller', () => {
  it('finds the requests it checks', () => {
    const methods = new Set(requests().map((r) => r.method));
    for (const m of ['nerdr.new', 'nerdr.send', 'nerdr.stop-agent', 'nerdr.stop', 'nerdr.restore', 'nerdr.retry']) expect(methods).toContain(m);
  });

  it('names caller in the params of each', () => {
    const without = requests().filter((r) => !/\bcaller\b/.test(r.statement));
    expect(without.map((r) => `${r.where} ${r.method}`)).toEqual([]);
  });
});
