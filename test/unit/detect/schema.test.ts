// Manifest validation (manifest-format.md §1.1–1.6).
import { describe, expect, it } from 'vitest';
import { lintManifest, parseManifest } from '../../../src/detect/schema.js';

const RULE = '[[rules]]\nid = "r"\nstate = "idle"\ncontains = ["x"]\n';
const ok = (toml: string) => {
  const r = parseManifest(toml);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.manifest;
};
const errors = (toml: string): string => {
  const r = parseManifest(toml);
  expect(r.ok, 'expected the file to be rejected').toBe(false);
  return r.ok ? '' : r.errors.join('\n');
};

describe('valid files', () => {
  it('defaults and types', () => {
    const m = ok(`id = "a"\nversion = " 2026.06.10 "\nmin_engine_version = 3\nupdated_at = "2026-06-10T00:00:00Z"\naliases = ["b"]\n${RULE}`);
    expect(m.version).toBe('2026.06.10');
    expect(m.minEngineVersion).toBe(3);
    const r = m.rules[0]!;
    expect(r.priority).toBe(0);
    expect(r.regionName).toBe('whole_recent');
    expect(r.visibleIdle).toBe(false);
    expect(m.hasIdleRules).toBe(true);
  });
  it('missing state means unknown; negative priority allowed; multi-line inline arrays', () => {
    const m = ok('id = "a"\n[[rules]]\nid = "r"\npriority = -10\nany = [\n  { contains = ["x"] },\n  { regex = [\'(?s).+\'] },\n]\n');
    expect(m.rules[0]!.state).toBe('unknown');
    expect(m.rules[0]!.priority).toBe(-10);
    expect(m.hasIdleRules).toBe(false);
  });
  it('a `not` gate may contain only another not; top_non_empty_lines allowed without min_engine_version', () => {
    ok('id = "a"\n[[rules]]\nid = "r"\nregion = "top_non_empty_lines(2)"\ncontains = ["x"]\nnot = [ { not = [ { contains = ["y"] } ] } ]\n');
  });
  it('8 nested levels are allowed', () => {
    let g = '{ contains = ["x"] }';
    for (let k = 0; k < 7; k++) g = `{ all = [ ${g} ] }`;
    ok(`id = "a"\n[[rules]]\nid = "r"\nall = [ ${g} ]\n`);
  });
  it('skip rule with explicit unknown', () => {
    ok('id = "a"\n[[rules]]\nid = "r"\nstate = "unknown"\nskip_state_update = true\ncontains = ["x"]\n');
  });
});

describe('invalid files', () => {
  const cases: [string, string, RegExp][] = [
    ['TOML syntax', 'id = ', /TOML syntax/],
    ['unknown top-level key', `id = "a"\nextra = 1\n${RULE}`, /extra/],
    ['unknown rule key', 'id = "a"\n[[rules]]\nid = "r"\nstates = "idle"\ncontains = ["x"]\n', /states/],
    ['unknown gate key', 'id = "a"\n[[rules]]\nid = "r"\nany = [ { contain = ["x"] } ]\n', /contain/],
    ['missing id', RULE, /id/],
    ['version as integer', `id = "a"\nversion = 2026\n${RULE}`, /version/],
    ['bad version', `id = "a"\nversion = "2026.06.alpha"\n${RULE}`, /version/],
    ['empty version segment', `id = "a"\nversion = "2026..06"\n${RULE}`, /version/],
    ['negative engine', `id = "a"\nmin_engine_version = -1\n${RULE}`, /min_engine_version/],
    ['float priority', 'id = "a"\n[[rules]]\nid = "r"\npriority = 1.0\ncontains = ["x"]\n', /priority/],
    ['priority beyond i32', 'id = "a"\n[[rules]]\nid = "r"\npriority = 2147483648\ncontains = ["x"]\n', /priority/],
    ['datetime updated_at', `id = "a"\nupdated_at = 2026-06-10T00:00:00Z\n${RULE}`, /updated_at/],
    ['bad state', 'id = "a"\n[[rules]]\nid = "r"\nstate = "Idle"\ncontains = ["x"]\n', /state/],
    ['done is not a state', 'id = "a"\n[[rules]]\nid = "r"\nstate = "done"\ncontains = ["x"]\n', /state/],
    ['no rules', 'id = "a"\n', /at least one/],
    ['blank rule id', 'id = "a"\n[[rules]]\nid = "  "\ncontains = ["x"]\n', /blank/],
    ['skip without explicit unknown', 'id = "a"\n[[rules]]\nid = "r"\nskip_state_update = true\ncontains = ["x"]\n', /skip_state_update/],
    ['skip with visible flag', 'id = "a"\n[[rules]]\nid = "r"\nstate = "unknown"\nskip_state_update = true\nvisible_idle = true\ncontains = ["x"]\n', /visible/],
    ['unknown region', 'id = "a"\n[[rules]]\nid = "r"\nregion = "bottom"\ncontains = ["x"]\n', /region/],
    ['top_non_empty_lines below engine 3', 'id = "a"\nmin_engine_version = 2\n[[rules]]\nid = "r"\nregion = "top_non_empty_lines(1)"\ncontains = ["x"]\n', /min_engine_version = 3/],
    ['rule without positive matcher', 'id = "a"\n[[rules]]\nid = "r"\nnot = [ { contains = ["x"] } ]\n', /needs at least one/],
    ['empty arrays are not positive', 'id = "a"\n[[rules]]\nid = "r"\ncontains = []\n', /needs at least one/],
    ['all-gate with only not', 'id = "a"\n[[rules]]\nid = "r"\ncontains = ["x"]\nall = [ { not = [ { contains = ["y"] } ] } ]\n', /needs at least one/],
    ['empty not gate', 'id = "a"\n[[rules]]\nid = "r"\ncontains = ["x"]\nnot = [ {} ]\n', /empty gate/],
    ['not → any held to the positive rule', 'id = "a"\n[[rules]]\nid = "r"\ncontains = ["x"]\nnot = [ { any = [ { not = [ { contains = ["y"] } ] } ] } ]\n', /needs at least one/],
    ['bad regex', "id = \"a\"\n[[rules]]\nid = \"r\"\nregex = ['(unclosed']\n", /invalid regex/],
    ['unsupported regex', "id = \"a\"\n[[rules]]\nid = \"r\"\nline_regex = ['a(?i)b']\n", /invalid regex/],
  ];
  for (const [name, toml, re] of cases) {
    it(name, () => {
      expect(errors(toml)).toMatch(re);
    });
  }
  it('limits: 128 rules, depth 8, 32 matchers per gate, 512 chars, 512 gates, 1024 matchers', () => {
    expect(errors(`id = "a"\n${RULE.repeat(129)}`)).toMatch(/at most 128/);
    let g = '{ contains = ["x"] }';
    for (let k = 0; k < 8; k++) g = `{ all = [ ${g} ] }`;
    expect(errors(`id = "a"\n[[rules]]\nid = "r"\nall = [ ${g} ]\n`)).toMatch(/deeper than 8/);
    const many = Array.from({ length: 33 }, (_, k) => `"m${k}"`).join(', ');
    expect(errors(`id = "a"\n[[rules]]\nid = "r"\ncontains = [${many}]\n`)).toMatch(/at most 32/);
    expect(errors(`id = "a"\n[[rules]]\nid = "r"\ncontains = ["${'é'.repeat(513)}"]\n`)).toMatch(/longer than 512/);
    ok(`id = "a"\n[[rules]]\nid = "r"\ncontains = ["${'é'.repeat(512)}"]\n`);
    const fiveGates = '[[rules]]\nid = "r"\ncontains = ["x"]\nall = [ {contains=["a"]}, {contains=["b"]}, {contains=["c"]}, {contains=["d"]} ]\n';
    expect(errors(`id = "a"\n${fiveGates.repeat(103)}`)).toMatch(/gates in the file/);
    const thirty = Array.from({ length: 30 }, (_, k) => `"m${k}"`).join(', ');
    expect(errors(`id = "a"\n${`[[rules]]\nid = "r"\ncontains = [${thirty}]\n`.repeat(35)}`)).toMatch(/matchers in the file/);
  });
});

describe('lint (publisher checks)', () => {
  it('warns about missing version, engine level, non-canonical counts', () => {
    const m = ok('id = "a"\n[[rules]]\nid = "r"\nregion = "bottom_lines(+02)"\ncontains = ["x"]\n');
    const w = lintManifest(m).join('\n');
    expect(w).toMatch(/version is missing/);
    expect(w).toMatch(/min_engine_version is missing/);
    expect(w).toMatch(/bottom_lines\(2\)/);
  });
});
