#!/usr/bin/env node
// The version matrix of docs/conformance.md, regenerated from the real-agent suite's results
// (test/agents/results/<agent>.json for the pinned version, <agent>@<version>.json for another),
// never written by hand. Replaces what is between the matrix markers in docs/conformance.md.
//
//   node scripts/conformance-matrix.mjs          # rewrite the table
//   node scripts/conformance-matrix.mjs --check  # exit 1 when the table is not what the results say

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const resultsDir = path.join(root, 'test', 'agents', 'results');
const doc = path.join(root, 'docs', 'conformance.md');
const START = '<!-- matrix:start (scripts/conformance-matrix.mjs writes this table) -->';
const END = '<!-- matrix:end -->';

/** The columns: a short name and the suite's phase (or phases, all of which must pass). */
const COLUMNS = [
  ['working', ['working while the model streams']],
  ['blocked: permission', ['blocked at the permission prompt']],
  ['blocked: question', ['blocked at a question']],
  ['done', ['done at the end of the turn', 'done after the approved command']],
  ['idle after Esc', ['idle after a permission denied with Esc', 'idle after a turn interrupted while streaming', 'idle after a turn interrupted before its first token']],
  ['subagent', ['working while a subagent runs']],
  ['restore', ['nerdr restore resumes the conversation']],
  ['conversation id', ["conversation id is the agent's own"]],
  ['skill', ['the nerdr skill reaches the model']],
];

const ORDER = ['claude', 'codex', 'opencode', 'kilo', 'copilot', 'gemini', 'qwen', 'pi'];

/** A pass where the suite accepted `done` for a key-press idle (its note says so) is shown as such. */
const DONE_NOT_IDLE = /^after (deny|interrupt[^:]*): done \(the state rules say idle/;

function cell(run, phases, column) {
  const got = phases.map((p) => run.results.find((r) => r.phase === p)?.outcome ?? 'not run');
  if (got.every((o) => o === 'n/a')) return 'n/a';
  if (got.some((o) => o === 'fail')) return '**fail**';
  if (got.some((o) => o === 'not run')) return 'not run';
  if (got.some((o) => o === 'pending')) return 'pending';
  if (column === 'idle after Esc') {
    const done = (run.notes ?? []).filter((n) => DONE_NOT_IDLE.test(n)).length;
    if (done > 0) return `pass, ${done} of 3 **done**`;
  }
  return 'pass';
}

export function matrix() {
  const runs = readdirSync(resultsDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(path.join(resultsDir, f), 'utf8')));
  const cmp = (a, b) => {
    const va = a.version.split('.').map(Number);
    const vb = b.version.split('.').map(Number);
    for (let i = 0; i < Math.max(va.length, vb.length); i++) if ((va[i] ?? 0) !== (vb[i] ?? 0)) return (va[i] ?? 0) - (vb[i] ?? 0);
    return 0;
  };
  runs.sort((a, b) => (ORDER.indexOf(a.agent) - ORDER.indexOf(b.agent)) || cmp(a, b));
  const head = ['agent', 'version', 'run', ...COLUMNS.map(([c]) => c)];
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const r of runs) {
    const pinned = r.pinned !== false;
    lines.push(`| ${r.agent} | ${r.version}${pinned ? ' (pinned)' : ''} | ${r.date.slice(0, 10)} | ${COLUMNS.map(([c, phases]) => cell(r, phases, c)).join(' | ')} |`);
  }
  return lines.join('\n');
}

const text = readFileSync(doc, 'utf8');
const a = text.indexOf(START);
const b = text.indexOf(END);
if (a < 0 || b < a) {
  process.stderr.write(`docs/conformance.md has no matrix markers (${START} … ${END})\n`);
  process.exit(2);
}
const next = `${text.slice(0, a + START.length)}\n${matrix()}\n${text.slice(b)}`;
if (process.argv.includes('--check')) {
  if (next !== text) {
    process.stderr.write('docs/conformance.md: the version matrix is not what test/agents/results says; run node scripts/conformance-matrix.mjs\n');
    process.exit(1);
  }
} else if (next !== text) writeFileSync(doc, next);
