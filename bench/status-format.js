// What a light costs tmux to draw now that it carries its offline look (docs/tmux.md, "While no
// supervisor runs"): tmux expands @nerdr_light once per agent window per client at every status
// redraw, and the offline-aware light asks tmux, each time, whether a client is attached to
// _nerdr (a loop over the sessions). Measured inside tmux: one `display -p` that expands a light
// COPIES times, minus one that prints plain characters instead, best of RUNS; per
// server size (sessions), with nerdr's control client stand-in attached (the live branch).
//
//   node bench/status-format.js [--copies 2000] [--runs 5] [--sessions 2,5,10]
//
// Figures: ns per expansion of the plain light (what nerdr wrote before) and of the
// offline-aware one, and the difference for 20 agent windows on one client's status line.

import { spawn } from 'node:child_process';
import { BenchServer, flags, line, load, num, printJson, round, sleep } from './lib.js';

const f = flags();
const COPIES = num(f.copies, 2000);
const RUNS = num(f.runs, 5);
const SESSIONS = (typeof f.sessions === 'string' ? f.sessions : '2,5,10').split(',').map(Number).filter((n) => n >= 2);

const { DEFAULT_GLYPHS, lightText } = await load('supervisor/lights.js');

/**
 * Best (lowest) ns per expansion of option `name`, COPIES times in one display -p (in blocks of
 * 100 held in an option, as tmux refuses a long command), minus the same with 100 plain
 * characters per block, over RUNS.
 */
function perExpansion(srv, name) {
  srv.tmux(['set-option', '-g', '@b', `#{E:${name}}`.repeat(100)]);
  srv.tmux(['set-option', '-g', '@e', 'x'.repeat(100)]);
  const blocks = Math.max(1, Math.round(COPIES / 100));
  let best = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const a = process.hrtime.bigint();
    srv.tmux(['display', '-p', '-t', 'bench', '#{E:@b}'.repeat(blocks)]);
    const b = process.hrtime.bigint();
    srv.tmux(['display', '-p', '-t', 'bench', '#{E:@e}'.repeat(blocks)]);
    const c = process.hrtime.bigint();
    best = Math.min(best, Number(b - a - (c - b)));
  }
  return Math.max(0, best / (blocks * 100));
}

const results = [];
for (const sessions of SESSIONS) {
  const srv = new BenchServer('fmt').start();
  srv.tmux(['new-session', '-d', '-s', '_nerdr', 'sleep 1000000']);
  for (let i = 2; i < sessions; i++) srv.tmux(['new-session', '-d', '-s', `s${i}`, 'sleep 1000000']);
  // a control client on _nerdr, as the supervisor's: the live branch is the one expanded
  const client = spawn('tmux', ['-L', srv.name, '-C', 'attach', '-t', '=_nerdr'], { env: srv.env, stdio: ['pipe', 'ignore', 'ignore'] });
  srv.extraPids.add(client.pid);
  for (let i = 0; i < 100 && !srv.tmux(['list-clients', '-F', '#{session_name}']).includes('_nerdr'); i++) await sleep(20);
  srv.tmux(['set-option', '-g', '@plain', DEFAULT_GLYPHS.blocked]);
  srv.tmux(['set-option', '-g', '@aware', lightText({ state: 'blocked', kind: 'blocked' })]);
  const plainNs = perExpansion(srv, '@plain');
  const awareNs = perExpansion(srv, '@aware');
  const r = { sessions, plainNs: round(plainNs, 0), awareNs: round(awareNs, 0), extraUsPer20Windows: round(((awareNs - plainNs) * 20) / 1000, 1) };
  results.push(r);
  line(`${sessions} sessions: ns per light, plain / offline-aware`, `${r.plainNs} / ${r.awareNs}`);
  line(`${sessions} sessions: µs more per status line of 20 lights`, r.extraUsPer20Windows);
  client.stdin.end();
  srv.stopSync();
}
printJson('status-format', { copies: COPIES, runs: RUNS, results });
