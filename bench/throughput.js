// Throughput: N MB of text (default 50) through one watched agent pane (120x40, agent label
// "claude" so screen detection runs as it would for a real agent).
//
//   node bench/throughput.js [--mb 50] [--runs 1] [--no-baseline] [--poll-ms 20]
//                            [--sup-node-args '--cpu-prof --cpu-prof-dir=/tmp/prof']
//
// --sup-node-args: node's own flags for the supervisor, which then runs as this bench's child
// (bench/lib.js, startForeground) and is ended with SIGTERM after each run, writing its profile.
//
// Per run, in one private tmux server:
//   baseline  the same file `cat` in a plain (unwatched) tmux window: tmux server CPU and time
//   watched   the file `cat` in a watched window; the clock stops when the file's end marker
//             is visible in the supervisor's mirror (polled with nerdr.read every --poll-ms)
// Figures: supervisor CPU / tmux server CPU over the watched run (target <= 0.30, issue 28), MB/s until
// the mirror caught up, plus the control-mode client process (tmux -C) and the baseline.

import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BenchServer, cpuSeconds, flags, line, median, nowMs, num, printJson, round, sleep, startForeground, stopSupervisor, supNodeArgs, verdict } from './lib.js';

const f = flags();
const MB = num(f.mb, 50);
const RUNS = num(f.runs, 1);
const BASELINE = !f['no-baseline'];
const SUP_NODE_ARGS = supNodeArgs();
const POLL_MS = num(f['poll-ms'], 20);
const TARGET_RATIO = 0.3;

const WORDS = ['supervisor', 'mirror', 'tmux', 'pane', 'agent', 'light', 'status', 'working', 'blocked', 'done', 'idle', 'café', 'naïve', 'größe', '日本語', 'λ', '→', 'const', 'return', 'await', 'import', 'function'];
const SGR = ['\x1b[1m', '\x1b[32m', '\x1b[33m', '\x1b[36m', '\x1b[2m'];

/** ~bytes of text: 12 words a line, some UTF-8, an SGR span every fourth line. */
async function makeFile(file, bytes) {
  const out = createWriteStream(file);
  let written = 0;
  let n = 0;
  let seed = 12345;
  const rnd = (k) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % k;
  };
  while (written < bytes) {
    let chunk = '';
    for (let i = 0; i < 2000; i++, n++) {
      const words = [];
      for (let w = 0; w < 12; w++) words.push(WORDS[rnd(WORDS.length)]);
      let text = `${String(n).padStart(8, '0')} ${words.join(' ')}`;
      if (n % 4 === 0) text = `${SGR[rnd(SGR.length)]}${text.slice(0, 30)}\x1b[0m${text.slice(30)}`;
      chunk += text + '\n';
    }
    const b = Buffer.from(chunk);
    written += b.length;
    if (!out.write(b)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
  return written;
}

function paneScript(dir, file, marker) {
  const go = path.join(dir, 'go');
  const done = path.join(dir, 'done');
  return `while [ ! -e '${go}' ]; do sleep 0.02; done; cat '${file}'; printf '\\n%s\\n' '${marker}'; date +%s%N > '${done}.tmp'; mv '${done}.tmp' '${done}'; exec sleep 1000000`;
}

async function runOnce(run, file, bytes) {
  const srv = new BenchServer('tput').start();
  const result = { run };
  try {
    if (SUP_NODE_ARGS) await startForeground(srv, SUP_NODE_ARGS);
    else await srv.startSupervisor();
    // ---- baseline: a plain window nobody mirrors ------------------------------------------
    if (BASELINE) {
      const dir = path.join(srv.workDir, 'base');
      mkdirSync(dir);
      const w = srv.tmux(['new-window', '-d', '-t', 'bench:', '-P', '-F', '#{window_id}', 'sh', '-c', paneScript(dir, file, 'BASE-END')]).trim();
      srv.tmux(['resize-window', '-t', w, '-x', '120', '-y', '40']);
      await sleep(500);
      const s0 = cpuSeconds(srv.serverPid);
      const t0 = nowMs();
      writeFileSync(path.join(dir, 'go'), '');
      while (!existsSync(path.join(dir, 'done'))) await sleep(10);
      const t1 = Number(readFileSync(path.join(dir, 'done'), 'utf8').trim()) / 1e6;
      await sleep(200);
      const s1 = cpuSeconds(srv.serverPid);
      srv.tmux(['kill-window', '-t', w]);
      result.baseline = { seconds: round((t1 - t0) / 1000), mbPerSec: round(bytes / 1e6 / ((t1 - t0) / 1000), 1), tmuxServerCpu: round(s1 - s0, 2) };
      await sleep(300);
    }
    // ---- watched -----------------------------------------------------------------------
    const dir = path.join(srv.workDir, 'watched');
    mkdirSync(dir);
    const marker = `NERDR-BENCH-END-${run}-${process.pid}`;
    const win = await srv.newWindow({ agent: 'claude', name: 'flood', argv: ['/bin/sh', '-c', paneScript(dir, file, marker)] });
    // the mirror exists and the resize re-snapshot is done
    for (let i = 0; i < 200; i++) {
      const r = await srv.request('nerdr.read', { target: win.window }).catch(() => null);
      if (r) break;
      await sleep(50);
    }
    await sleep(1500);
    const sup0 = cpuSeconds(srv.supervisorPid);
    const cli0 = cpuSeconds(srv.clientPid);
    const tmx0 = cpuSeconds(srv.serverPid);
    const t0 = nowMs();
    writeFileSync(path.join(dir, 'go'), '');
    let polls = 0;
    let t1 = 0;
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline) {
      polls++;
      const r = await srv.request('nerdr.read', { target: win.window, lines: 4 }).catch(() => null);
      if (r && r.text.includes(marker)) {
        t1 = nowMs();
        break;
      }
      await sleep(POLL_MS);
    }
    if (!t1) throw new Error('the mirror never showed the end marker');
    const sup1 = cpuSeconds(srv.supervisorPid);
    const cli1 = cpuSeconds(srv.clientPid);
    const tmx1 = cpuSeconds(srv.serverPid);
    // the marker is on screen a moment before the pane's `date` ran
    for (let i = 0; i < 200 && !existsSync(path.join(dir, 'done')); i++) await sleep(10);
    const producerDone = Number(readFileSync(path.join(dir, 'done'), 'utf8').trim()) / 1e6;
    const secs = (t1 - t0) / 1000;
    result.watched = {
      seconds: round(secs),
      mbPerSec: round(bytes / 1e6 / secs, 1),
      producerSeconds: round((producerDone - t0) / 1000),
      mirrorLagAfterProducerMs: Math.round(t1 - producerDone),
      supervisorCpu: round(sup1 - sup0, 2),
      controlClientCpu: round(cli1 - cli0, 2),
      tmuxServerCpu: round(tmx1 - tmx0, 2),
      readPolls: polls,
    };
    result.ratio = round((sup1 - sup0) / (tmx1 - tmx0));
    result.ratioWithClient = round((sup1 - sup0 + cli1 - cli0) / (tmx1 - tmx0));
    result.state = srv.state(win.window);
    if (SUP_NODE_ARGS) await stopSupervisor(srv);
  } finally {
    srv.stopSync();
  }
  return result;
}

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'nerdr-bench-data-'));
  const file = path.join(tmp, 'flood.txt');
  try {
    const bytes = await makeFile(file, MB * 1e6);
    process.stdout.write(`throughput: ${round(bytes / 1e6, 1)} MB of text (12 words a line, UTF-8, SGR) through one 120x40 watched pane, ${RUNS} run(s)\n`);
    const runs = [];
    for (let i = 1; i <= RUNS; i++) {
      const r = await runOnce(i, file, bytes);
      runs.push(r);
      const w = r.watched;
      process.stdout.write(`run ${i}\n`);
      if (r.baseline) line('baseline (unwatched window): time, MB/s', `${r.baseline.seconds} s, ${r.baseline.mbPerSec} MB/s, tmux server CPU ${r.baseline.tmuxServerCpu} s`);
      line('watched: mirror caught up after', `${w.seconds} s (${w.mbPerSec} MB/s); producer done at ${w.producerSeconds} s, mirror ${w.mirrorLagAfterProducerMs} ms later`);
      line('CPU s: supervisor / tmux -C client / server', `${w.supervisorCpu} / ${w.controlClientCpu} / ${w.tmuxServerCpu}`);
      line('supervisor CPU / tmux server CPU', `${r.ratio} (target <= ${TARGET_RATIO}: ${verdict(r.ratio <= TARGET_RATIO)})`);
      line('(supervisor + tmux -C client) / server', `${r.ratioWithClient}`);
    }
    const ratios = runs.map((r) => r.ratio);
    const mbps = runs.map((r) => r.watched.mbPerSec);
    const out = {
      mb: round(bytes / 1e6, 1),
      runs,
      ratioMedian: round(median(ratios)),
      ratioMin: Math.min(...ratios),
      ratioMax: Math.max(...ratios),
      mbPerSecMedian: round(median(mbps), 1),
      targetRatio: TARGET_RATIO,
      met: median(ratios) <= TARGET_RATIO,
    };
    if (RUNS > 1) {
      line('ratio median (min..max)', `${out.ratioMedian} (${out.ratioMin}..${out.ratioMax})`);
      line('MB/s median (min..max)', `${out.mbPerSecMedian} (${Math.min(...mbps)}..${Math.max(...mbps)})`);
    }
    printJson('throughput', out);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
