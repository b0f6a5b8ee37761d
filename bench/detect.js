// Detection (issue "Detection"): two figures.
//
//   node bench/detect.js [--seconds 1.5] [--runs 20] [--skip-rate] [--skip-latency]
//
// 1. Evaluations per second of the bundled claude manifest on the 120x40 Claude screens of
//    test/fixtures/real/screens/claude/*.txt, through detectSnapshot() exactly as the
//    supervisor calls it (rows padded to 120 columns, height 40), round-robin over the screens,
//    without and with an OSC title (a title makes detectText evaluate twice). Target >= 5,000/s.
// 2. Latency from the last byte of a permission dialog written to the pty to @nerdr_state =
//    blocked in tmux (what the status bar shows), median of --runs (default 20). A watched window
//    with agent label "claude" runs bench/screen-pane.js, which draws the real Claude idle
//    screen, then on command the real permission-dialog screen (04-permission-bash.ansi.txt)
//    and reports when its write() returned. A second control client (no-output) polls
//    `show-options -wqv @nerdr_state` back to back (resolution ~1-2 ms). Between runs the pane
//    goes back to the idle screen and the bench waits until the state left blocked (the
//    arbiter's 2 s "dialog answered" rule) plus 0.5 s. Target <= 100 ms.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_DIR, BenchServer, FIXTURES, ScreenControl, StatePoller, flags, line, median, num, printJson, round, sleep, summary, verdict } from './lib.js';
import { load } from './lib.js';

const f = flags();
const SECONDS = num(f.seconds, 1.5);
const RUNS = num(f.runs, 20);
const TARGET_RATE = 5000;
const TARGET_LATENCY_MS = 100;
const SCREENS = path.join(FIXTURES, 'screens', 'claude');

async function evalRate() {
  const { ManifestRegistry, detectSnapshot } = await load('detect/index.js');
  // only the bundled manifests; a fresh registry (and so a fresh slow-rule guard) per measurement
  const warnings = [];
  const fresh = () => {
    const reg = new ManifestRegistry({ env: { ...process.env, NERDR_CONFIG_DIR: '/nonexistent-nerdr-bench', XDG_STATE_HOME: '/nonexistent-nerdr-bench' }, onWarning: (m) => warnings.push(m) });
    const l = reg.get('claude');
    if (!l) throw new Error('no claude manifest');
    return l;
  };
  let loaded = fresh();
  const truth = new Map(JSON.parse(readFileSync(path.join(FIXTURES, 'screens', 'index.json'), 'utf8')).screens.map((s) => [s.screen, s.state]));
  const files = readdirSync(SCREENS).filter((n) => n.endsWith('.txt') && !n.endsWith('.ansi.txt')).sort();
  const snaps = files.map((n) => {
    const rows = readFileSync(path.join(SCREENS, n), 'utf8').replace(/\n$/, '').split('\n').map((r) => r.padEnd(120, ' '));
    while (rows.length < 40) rows.push(' '.repeat(120));
    return { name: n.replace(/\.txt$/, ''), snap: { rows, oscTitle: '', oscProgress: '', altScreen: false, cursor: { x: 0, y: 39 }, cols: 120, height: 40 } };
  });
  const run = (list, seconds) => {
    loaded = fresh();
    // warm up (JIT, regex compilation), then count whole passes for `seconds`
    for (let i = 0; i < 200; i++) for (const s of list) detectSnapshot(loaded, s);
    let n = 0;
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    while (performance.now() < end) {
      for (const s of list) detectSnapshot(loaded, s);
      n += list.length;
    }
    return n / ((performance.now() - t0) / 1000);
  };
  const perScreen = {};
  const disabled = new Set();
  const check = () => {
    for (const r of detectSnapshot(loaded, snaps[0].snap).disabledRules ?? []) disabled.add(r);
  };
  for (const s of snaps) {
    const perSec = Math.round(run([s.snap], SECONDS / 2));
    check();
    const expected = truth.get(`claude/${s.name}`);
    perScreen[s.name] = { state: detectSnapshot(fresh(), s.snap).state, expected, perSec };
  }
  const plain = Math.round(run(snaps.map((s) => s.snap), SECONDS));
  check();
  const titled = Math.round(run(snaps.map((s) => ({ ...s.snap, oscTitle: '✳ Claude Code' })), SECONDS));
  check();
  return { screens: snaps.length, perScreen, roundRobinPerSec: plain, roundRobinWithTitlePerSec: titled, usPerEval: round(1e6 / plain, 1), disabledRules: [...disabled], guardWarnings: warnings };
}

async function latency() {
  const srv = new BenchServer('det').start();
  let ctl = null;
  let poller = null;
  try {
    await srv.startSupervisor();
    ctl = await ScreenControl.open(srv.workDir);
    const idle = path.join(SCREENS, '06-idle-after-bash.ansi.txt');
    const dialog = path.join(SCREENS, '04-permission-bash.ansi.txt');
    const win = await srv.newWindow({ agent: 'claude', name: 'claude-dialog', argv: [process.execPath, path.join(BENCH_DIR, 'screen-pane.js'), ctl.path, idle] });
    poller = await StatePoller.open(srv);
    await ctl.connected;
    await ctl.draw(idle); // redraw after the resize
    await poller.waitFor(win.window, (s) => s === 'idle' || s === 'done', { timeoutMs: 15_000, intervalMs: 50 });
    await sleep(500);
    const ms = [];
    for (let i = 0; i < RUNS; i++) {
      const wrote = await ctl.draw(dialog);
      const { at } = await poller.waitFor(win.window, (s) => s === 'blocked', { timeoutMs: 5000, intervalMs: 1 });
      ms.push(at - wrote);
      await ctl.draw(idle);
      await poller.waitFor(win.window, (s) => s !== 'blocked', { timeoutMs: 10_000, intervalMs: 50 });
      await sleep(500);
    }
    return { runs: ms.length, ms: ms.map((x) => round(x, 1)), ...summary(ms), polls: poller.polls };
  } finally {
    await poller?.close().catch(() => undefined);
    ctl?.close();
    srv.stopSync();
  }
}

async function main() {
  const out = { targets: { evalsPerSec: TARGET_RATE, latencyMs: TARGET_LATENCY_MS } };
  process.stdout.write('detect: claude manifest evaluation rate, and dialog-to-light latency\n');
  if (!f['skip-rate']) {
    const r = await evalRate();
    out.rate = r;
    for (const [name, s] of Object.entries(r.perScreen)) line(`  ${name} (${s.state}${s.expected && s.expected !== s.state ? `; truth ${s.expected}` : ''})`, `${s.perSec}/s`);
    line('evaluations/s, all screens round-robin', `${r.roundRobinPerSec}/s = ${r.usPerEval} µs each (target >= ${TARGET_RATE}: ${verdict(r.roundRobinPerSec >= TARGET_RATE)})`);
    line('  with an OSC title (two evaluate() passes)', `${r.roundRobinWithTitlePerSec}/s`);
    if (r.disabledRules?.length) line('  WARNING: slow-rule guard disabled', `${r.disabledRules.join(', ')} during the measurement (wall-clock budget; see docs/performance.md)`);
  }
  if (!f['skip-latency']) {
    const l = await latency();
    out.latency = l;
    line(`dialog written -> @nerdr_state=blocked, ${l.runs} runs`, `median ${l.median} ms (min ${l.min}, p90 ${l.p90}, max ${l.max}) (target <= ${TARGET_LATENCY_MS} ms: ${verdict(l.median <= TARGET_LATENCY_MS)})`);
    line('  all runs (ms)', l.ms.join(' '));
  }
  out.met = (!out.rate || out.rate.roundRobinPerSec >= TARGET_RATE) && (!out.latency || out.latency.median <= TARGET_LATENCY_MS);
  printJson('detect', out);
}

await main();
