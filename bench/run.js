// Runs every benchmark, one after the other (each in its own process, each on its own private
// tmux server), and prints a summary with the targets. `npm run bench` builds first.
//
//   node bench/run.js [--only throughput,idle,memory,detect,hook,review,fleet,status-format,scale,revival] [--quick] [--out file.json]
//
// --quick: shorter runs for a smoke test (idle 20 s, 10 latency runs, 20 MB); the figures in
// docs/performance.md come from the full runs.

import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? (argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[i + 1] : true) : undefined;
};
const quick = !!opt('quick');
const only = typeof opt('only') === 'string' ? opt('only').split(',') : null;

const BENCHES = [
  { name: 'throughput', args: quick ? ['--mb', '20'] : [] },
  { name: 'idle', args: quick ? ['--seconds', '20', '--warmup', '8'] : [] },
  { name: 'memory', args: quick ? ['--fill', '8', '--samples', '8'] : [] },
  { name: 'detect', args: quick ? ['--runs', '10'] : [] },
  { name: 'hook', args: quick ? ['--runs', '15', '--latency-runs', '10'] : [] },
  { name: 'review', args: quick ? ['--seconds', '20', '--warmup', '8', '--files', '10000', '--runs', '5'] : [] },
  { name: 'fleet', args: quick ? ['--seconds', '20', '--warmup', '20', '--runs', '5'] : [] },
  { name: 'status-format', args: quick ? ['--runs', '3'] : [] },
  { name: 'revival', args: quick ? ['--kills', '3'] : [] },
  { name: 'scale', args: quick ? ['--windows', '30', '--seconds', '10', '--warmup', '8', '--latency-runs', '5', '--ls-runs', '5', '--mb', '20'] : [] },
];

const round1 = (x) => Math.round(x * 10) / 10;

function runBench(b) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(here, `${b.name}.js`), ...b.args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let json = null;
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d.toString('utf8');
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const l = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = /^BENCH_JSON (\S+) (.*)$/.exec(l);
        if (m) json = JSON.parse(m[2]);
        else process.stdout.write(l + '\n');
      }
    });
    child.on('close', (code) => resolve({ code, json }));
  });
}

const started = new Date().toISOString();
const results = {};
let failed = 0;
for (const b of BENCHES) {
  if (only && !only.includes(b.name)) continue;
  process.stdout.write(`\n=== ${b.name} ===\n`);
  const t0 = Date.now();
  const r = await runBench(b);
  if (r.code !== 0 || !r.json) {
    failed++;
    process.stdout.write(`${b.name} FAILED (exit ${r.code})\n`);
  }
  results[b.name] = { ...(r.json ?? { error: `exit ${r.code}` }), benchSeconds: Math.round((Date.now() - t0) / 100) / 10 };
}

const rows = [];
const t = results.throughput;
if (t?.runs) {
  rows.push(['throughput: supervisor CPU / tmux server CPU', t.ratioMedian, '<= 0.3', t.met]);
  rows.push(['throughput: MB/s until the mirror caught up', t.mbPerSecMedian, '(info)', null]);
}
const i = results.idle;
if (i?.agents !== undefined) {
  rows.push([`idle: supervisor CPU % (${i.agents} agents)`, i.supervisorCpuPct, '< 0.2', i.supervisorCpuPct < 0.2]);
  rows.push(['idle: tmux command lines while idle', i.linesSentDuring, '0', i.linesSentDuring === 0]);
}
const m = results.memory;
if (m?.perPaneMB !== undefined) rows.push(['memory: supervisor RSS MB per 120x40 pane', m.perPaneMB, '<= 3', m.met]);
const d = results.detect;
if (d?.rate) {
  rows.push(['detect: claude evaluations/s (no title)', d.rate.roundRobinPerSec, '>= 5000', d.rate.roundRobinPerSec >= 5000]);
  rows.push(['detect: claude evaluations/s (with OSC title)', d.rate.roundRobinWithTitlePerSec, '>= 5000', d.rate.roundRobinWithTitlePerSec >= 5000]);
}
if (d?.latency) rows.push(['detect: dialog -> light ms (median)', d.latency.median, '<= 100', d.latency.median <= 100]);
const h = results.hook;
if (h?.wall) {
  rows.push(['hook: wall(shell hook) / wall(node -e 0)', h.wall.ratio, '<= 0.10', h.wall.ratio <= 0.1]);
  rows.push(['hook: wall(nerdr hook, Node) / wall(node -e 0)', h.wall.nodeHookRatio, '(info)', null]);
  rows.push(['hook: CPU ms per event, shell hook', h.cpu.shellMs, '<= 5', h.cpu.shellMs <= 5]);
  rows.push(['hook: spawn -> light ms (median)', h.latency.fromSpawnMs.median, '<= 20', h.latency.fromSpawnMs.median <= 20]);
  rows.push(['hook: hook exit -> light ms (median)', h.latency.fromExitMs.median, '(info)', null]);
  rows.push(['hook: 1,000 events in 1 s, windows right', `${h.burst.right}/10`, '10/10', h.burst.right === 10]);
  rows.push(['hook: events lost across a supervisor kill', h.restart.lost, '0', h.restart.lost === 0]);
}
const rv = results.review;
if (rv?.idle) rows.push(['review: panel CPU % (another window busy)', rv.idle.panelCpuPct, '<= 0.1', rv.idle.met]);
if (rv?.big) {
  rows.push([`review: refresh ms, ${rv.big.trackedFiles} files (median)`, rv.big.gatherMs.median, '(info)', null]);
  rows.push(['review: file written -> shown ms (median)', rv.big.fileWrittenToShownMs.median, '(info)', null]);
}

const fl = results.fleet;
if (fl?.latencyMs) {
  rows.push([`fleet: supervisor CPU % (${fl.hosts} hosts x ${fl.agentsPerHost} idle)`, fl.supervisorCpuPct, '<= 0.2', fl.supervisorCpuPct <= 0.2]);
  rows.push(['fleet: remote blocked -> local summary ms (median)', fl.latencyMs.median, '<= 300', fl.latencyMs.median <= 300]);
}

const sf = results['status-format'];
for (const r of sf?.results ?? []) rows.push([`status: ns per light, ${r.sessions} sessions, plain/offline-aware`, `${r.plainNs}/${r.awareNs}`, '(info)', null]);

const rev = results.revival;
if (rev?.total) {
  rows.push([`revival: kill -9 -> ready ms, ${rev.windows} windows (median)`, Math.round(rev.total.median), '(info)', null]);
  rows.push([`revival: kill -9 -> ready ms, worst of ${rev.kills}`, Math.round(rev.total.max), '<= 2000', rev.met]);
}
const sc = results.scale;
if (sc?.met) {
  const n = sc.windows;
  rows.push([`scale: supervisor RSS MB, ${n} windows`, sc.rssMB, '<= 100', sc.met.rss]);
  if (sc.silentCmd) rows.push([`scale: CPU %, ${n} silent --cmd windows`, sc.silentCmd.supervisorCpuPct, '<= 0.1', sc.met.silentCmdCpu]);
  rows.push([`scale: CPU %, ${n} quiet claude windows`, sc.quietKnown.supervisorCpuPct, '<= 0.3', sc.met.quietKnownCpu]);
  if (sc.quietCmd) rows.push([`scale: CPU %, ${n} quiet --cmd windows`, sc.quietCmd.supervisorCpuPct, '<= 0.3', sc.met.quietCmdCpu]);
  if (sc.quietCmd?.floor) rows.push(['scale: the same lines, a bare Node reader, CPU %', Math.round((sc.quietCmd.floor.cpuMs / 10 / sc.quietCmd.floor.seconds) * 1000) / 1000, '(yardstick)', null]);
  rows.push([`scale: nerdr ls --json ms, ${n} windows`, round1(sc.lsN.median), '<= 60', sc.met.ls]);
  if (sc.nodeStart) rows.push(['scale: node -e 0 ms', round1(sc.nodeStart.median), '(yardstick)', null]);
  rows.push([`scale: dialog -> light ms over 1 window`, sc.latencyOverMs, '<= 50', sc.met.latency]);
  if (sc.flood) rows.push(['scale: flood CPU ratio (supervisor / tmux)', sc.flood.ratio, '<= 0.30', sc.met.flood]);
}

process.stdout.write(`\n=== summary (${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}) ===\n`);
for (const [label, value, target, ok] of rows) {
  process.stdout.write(`  ${label.padEnd(48)} ${String(value).padStart(10)}  target ${target.padEnd(8)} ${ok === null ? '' : ok ? 'MET' : 'MISSED'}\n`);
}
const rev = spawnSync('git', ['describe', '--always', '--dirty'], { cwd: path.join(here, '..'), encoding: 'utf8' }).stdout?.trim() || null;
const summary = { started, rev, node: process.version, cpus: os.cpus().length, loadavg: os.loadavg(), quick, results };
process.stdout.write(`BENCH_JSON all ${JSON.stringify(summary)}\n`);
const out = opt('out');
if (typeof out === 'string') writeFileSync(out, JSON.stringify(summary, null, 2) + '\n');
process.exit(failed ? 1 : 0);
