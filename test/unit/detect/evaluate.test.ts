// Gates, precedence and the result object (manifest-format.md §1.3–1.5), and the slow-rule guard.
import { describe, expect, it } from 'vitest';
import { evaluate, FALLBACK_REASON, RuleGuard } from '../../../src/detect/evaluate.js';
import { parseManifest, type Manifest } from '../../../src/detect/schema.js';

function manifest(rules: string): Manifest {
  const r = parseManifest(`id = "t"\n${rules}`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.manifest;
}
const rule = (id: string, body: string, extra = '') => `[[rules]]\nid = "${id}"\n${extra}\n${body}\n`;
const hit = (m: Manifest, text: string) => evaluate(m, { text }).matches.map((x) => x.id);

describe('gates', () => {
  it('contains: case-insensitive (full lower-casing), every needle, NBSP is not a space', () => {
    const m = manifest(rule('a', 'contains = ["ESC to", "İ"]', 'state = "working"') + rule('b', 'contains = ["❯ "]'));
    expect(hit(m, 'esc TO interrupt İ\n')).toEqual(['a']);
    expect(hit(m, 'esc to\n')).toEqual([]);
    expect(hit(m, '❯\u00A0\n')).toEqual([]);
    expect(hit(m, '❯ x\n')).toEqual(['b']);
  });
  it('empty contains string is always true', () => {
    expect(hit(manifest(rule('a', 'contains = [""]')), '')).toEqual(['a']);
  });
  it('regex is case-sensitive unless (?i); searches the whole region', () => {
    const m = manifest(rule('a', "regex = ['Esc to']") + rule('b', "regex = ['(?i)esc to']") + rule('c', "regex = ['a\\nb']"));
    expect(hit(m, 'esc to\n')).toEqual(['b']);
    expect(hit(m, 'a\nb\n')).toEqual(['c']);
  });
  it('line_regex: each pattern on some line, lines may differ; empty region has no lines', () => {
    const m = manifest(rule('a', "line_regex = ['^x$', '^y$']"));
    expect(hit(m, 'x\ny\n')).toEqual(['a']);
    expect(hit(m, 'xy\n')).toEqual([]);
    expect(hit(manifest(rule('e', "line_regex = ['^$']")), '')).toEqual([]);
    expect(hit(manifest(rule('e', "line_regex = ['^$']")), '\n')).toEqual(['e']);
  });
  it('all / any / not nest, see the same region, and not-of-not means must', () => {
    const m = manifest(
      rule('r', 'contains = ["a"]\nall = [ { any = [ { contains = ["b"] }, { contains = ["c"] } ] } ]\nnot = [ { contains = ["d", "e"] } ]') +
        rule('nn', 'contains = ["a"]\nnot = [ { not = [ { contains = ["z"] } ] } ]'),
    );
    expect(hit(m, 'a c\n')).toEqual(['r']);
    expect(hit(m, 'a\n')).toEqual([]);
    expect(hit(m, 'a b d\n')).toEqual(['r']);
    expect(hit(m, 'a b d e\n')).toEqual([]);
    expect(hit(m, 'a b z\n')).toEqual(['r', 'nn']);
  });
});

describe('choosing the result', () => {
  const m = manifest(
    rule('first', 'contains = ["x"]', 'state = "idle"\npriority = 250\nvisible_idle = true') +
      rule('second', 'contains = ["x"]', 'state = "idle"\npriority = 250') +
      rule('low', 'contains = ["x"]', 'state = "working"\npriority = 10\nvisible_working = true') +
      rule('higher_later', 'contains = ["y"]', 'state = "blocked"\npriority = 900\nvisible_idle = true'),
  );
  it('highest priority wins; ties go to the first rule in the file', () => {
    const r = evaluate(m, { text: 'x\n' });
    expect(r.rule).toBe('first');
    expect(r.visibleIdle).toBe(true);
    expect(r.matches.map((x) => [x.id, x.priority, x.state])).toEqual([
      ['first', 250, 'idle'],
      ['second', 250, 'idle'],
      ['low', 10, 'working'],
    ]);
    expect(r.hasIdleRules).toBe(true);
    expect(r.timings).toHaveLength(4);
  });
  it('a visible flag is reported only with its own state', () => {
    const r = evaluate(m, { text: 'x y\n' });
    expect(r.rule).toBe('higher_later');
    expect(r.state).toBe('blocked');
    expect(r.visibleIdle).toBe(false);
    expect(r.visibleBlocker).toBe(false);
  });
  it('no match → idle fallback, no flags', () => {
    const r = evaluate(m, { text: 'nothing\n' });
    expect(r).toMatchObject({ state: 'idle', rule: null, fallbackReason: FALLBACK_REASON, visibleIdle: false, skipStateUpdate: false });
  });
  it('skip_state_update and OSC regions', () => {
    const s = manifest(
      rule('viewer', 'contains = ["q to quit"]', 'state = "unknown"\nskip_state_update = true\npriority = 1000') +
        rule('spin', "regex = ['^⠋ ']", 'state = "working"\nregion = "osc_title"\npriority = 1100') +
        rule('prog', "regex = ['^4;0']", 'state = "idle"\nregion = "osc_progress"'),
    );
    expect(evaluate(s, { text: 'q to quit\n' })).toMatchObject({ state: 'unknown', skipStateUpdate: true });
    expect(evaluate(s, { text: 'q to quit\n', oscTitle: '⠋ x' })).toMatchObject({ state: 'working', skipStateUpdate: false });
    expect(evaluate(s, { text: '', oscProgress: '4;0;' }).rule).toBe('prog');
  });
});

describe('slow-rule guard', () => {
  it('disables a rule after several slow evaluations, with one warning, and retries it later', () => {
    const m = manifest(rule('slow', 'contains = ["x"]', 'state = "working"') + rule('fast', 'contains = ["x"]', 'state = "idle"'));
    let t = 0;
    const warnings: string[] = [];
    // Fake clock: each reading advances 10 ms → every rule "takes" 10 ms.
    const guard = new RuleGuard('t', { slowMs: 5, slowCount: 3, window: 5, retryAfterMs: 1_000_000, now: () => (t += 10), onWarning: (w) => warnings.push(w) });
    expect(evaluate(m, { text: 'x\n' }, { guard }).rule).toBe('slow');
    expect(evaluate(m, { text: 'x\n' }, { guard }).rule).toBe('slow');
    // The third slow evaluation disables both rules; from then on they are skipped.
    evaluate(m, { text: 'x\n' }, { guard });
    const r = evaluate(m, { text: 'x\n' }, { guard });
    expect(r.disabledRules).toEqual(['slow', 'fast']);
    expect(r.state).toBe('idle');
    expect(r.fallbackReason).toBe(FALLBACK_REASON);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/rule "slow" disabled/);
    t += 2_000_000; // past the retry delay: judged afresh
    expect(evaluate(m, { text: 'x\n' }, { guard }).rule).toBe('slow');
  });

  it('a supervisor stopped in the middle of an evaluation (SIGSTOP, sleep) does not disable the rule: cost is CPU, not wall time', () => {
    const m = manifest(rule('r', 'contains = ["x"]', 'state = "working"'));
    let wall = 0;
    const warnings: string[] = [];
    // the wall clock jumps 7 s during every evaluation; the CPU spent is nothing
    const guard = new RuleGuard('t', { now: () => (wall += 7000), cost: () => 0, onWarning: (w) => warnings.push(w) });
    for (let i = 0; i < 25; i++) expect(evaluate(m, { text: 'x\n' }, { guard }).rule).toBe('r');
    expect(warnings).toEqual([]);
    // and by default the cost is the process's CPU time, which a stopped process does not spend
    const real = new RuleGuard('t');
    expect(real.cost).not.toBe(real.now);
  });

  it('times rules with the wall clock, and with CPU time only after a wall time over the limit', () => {
    const m = manifest(rule('r', 'contains = ["x"]', 'state = "working"'));
    const warnings: string[] = [];
    let wall = 0;
    let costReads = 0;
    // stopped during every evaluation: the wall clock jumps 7 s, the CPU spent is nothing
    const stopped = new RuleGuard('t', { wall: () => (wall += 7000), cost: () => (costReads++, 0), onWarning: (w) => warnings.push(w) });
    for (let i = 0; i < 25; i++) expect(evaluate(m, { text: 'x\n' }, { guard: stopped }).rule).toBe('r');
    expect(warnings).toEqual([]);
    // every other evaluation asks the CPU clock: the one after a slow wall time
    expect(costReads).toBe(2 * 12);
    // a rule slow in CPU time too: one wall reading makes it a suspect, three CPU ones disable it
    let cpu = 0;
    const slow = new RuleGuard('t', { wall: () => (wall += 30), cost: () => (cpu += 30), onWarning: (w) => warnings.push(w) });
    for (let i = 0; i < 4; i++) expect(evaluate(m, { text: 'x\n' }, { guard: slow }).rule).toBe('r');
    expect(evaluate(m, { text: 'x\n' }, { guard: slow }).disabledRules).toEqual(['r']);
    expect(warnings).toHaveLength(1);
    // fast on the wall clock: the CPU clock is never read
    let reads = 0;
    const fast = new RuleGuard('t', { wall: () => 0, cost: () => (reads++, 0) });
    for (let i = 0; i < 10; i++) evaluate(m, { text: 'x\n' }, { guard: fast });
    expect(reads).toBe(0);
  });

  it('one slow evaluation (a GC pause, a preempted process) is not enough', () => {
    const m = manifest(rule('r', 'contains = ["x"]', 'state = "working"'));
    const samples = [1, 1, 80, 1, 1, 1];
    let i = 0;
    let t = 0;
    let start = true;
    const guard = new RuleGuard('t', {
      now: () => {
        t += start ? 0 : (samples[i++] ?? 1);
        start = !start;
        return t;
      },
    });
    for (let k = 0; k < samples.length; k++) expect(evaluate(m, { text: 'x\n' }, { guard }).rule).toBe('r');
  });
  it('only the slow times among the last `window` count: older ones roll out', () => {
    const m = manifest(rule('r', 'contains = ["x"]', 'state = "working"'));
    const warnings: string[] = [];
    let ms = 0;
    let t = 0;
    let start = true;
    // each evaluation of the rule takes `ms`
    const guard = new RuleGuard('t', { slowMs: 5, slowCount: 3, window: 5, now: () => ((t += start ? 0 : ms), (start = !start), t), onWarning: (w) => warnings.push(w) });
    const run = (took: number): string[] => ((ms = took), evaluate(m, { text: 'x\n' }, { guard }).disabledRules);
    for (const took of [9, 9, 1, 1, 1, 1, 1]) expect(run(took)).toEqual([]);
    // the two slow ones have rolled out of the last five: two more are not three
    expect(run(9)).toEqual([]);
    expect(run(9)).toEqual([]);
    expect(warnings).toEqual([]);
    // a third within the five: disabled
    run(9);
    expect(warnings).toHaveLength(1);
    expect(run(1)).toEqual(['r']);
  });

  it('a real pathological regex on a huge region is bounded by the region cap and then disabled', () => {
    const m = manifest(rule('evil', "regex = ['^(\\w+\\s?)*$']", 'state = "working"'));
    const warnings: string[] = [];
    const guard = new RuleGuard('t', { slowMs: 1, slowCount: 1, hardMs: 1, onWarning: (w) => warnings.push(w) });
    const text = `${'a'.repeat(22)}!\n`;
    const deadline = Date.now() + 20000;
    while (warnings.length === 0 && Date.now() < deadline) evaluate(m, { text }, { guard });
    expect(warnings.length).toBe(1);
    expect(evaluate(m, { text }, { guard }).disabledRules).toEqual(['evil']);
  });
});
