// Scale (issue 28, §3): one supervisor, a hundred agent windows on one tmux server.
//
//   node bench/scale.js [--windows 101] [--seconds 20] [--warmup = --interval] [--interval 20]
//                       [--latency-runs 10] [--ls-runs 10] [--mb 50] [--skip-throughput] [--skip-cmd]
//                       [--sup-node-args '--cpu-prof --cpu-prof-dir=/tmp/prof']
//
// --sup-node-args: node's own flags for the supervisor (a profile), after those the CLI gives it
// (src/supervisor/holder.ts, with its malloc setting), which then runs in the
// foreground as this bench's child (`nerdr supervise --foreground`; Node 20 takes no --cpu-prof
// in NODE_OPTIONS) and ends with SIGTERM, so that it writes its profile. With a --require'd
// script among them, the supervisor is sent SIGUSR2 as each measured spell starts and ends (to
// profile that spell alone) and SIGWINCH once the hundred windows' RSS is measured.
//
// All in one private tmux server, with the real supervisor process (started by the CLI):
//
//   probe    one watched window, agent label claude, running bench/screen-pane.js: it draws the
//            real Claude idle screen and, on command, the real permission dialog in one write.
//            Dialog written → @nerdr_state = blocked, median of --latency-runs, first with this
//            window alone, again with the hundred below (while they print). `nerdr ls --json`
//            wall time (the real CLI, a node start each), alone and with the hundred.
//   silent   --windows `--cmd` windows (`/bin/sh -c 'exec sleep …'`, agent unknown, as
//            `nerdr new --cmd` makes them) that print nothing: supervisor CPU over --seconds.
//   quiet    the same windows each print one short line every --interval seconds (101 windows,
//            20 s: 5 lines a second in all, evenly spaced). The bench writes the lines to the
//            panes' ttys itself, so tmux gets exactly what a program's write gives it and no
//            pane forks a process per line. CPU over --seconds after --warmup, and per line.
//            Then a yardstick: the CPU per line of a bare Node control client reading the same
//            lines (bench/floor-reader.js: it splits tmux's stream and counts, nothing more).
//   known    the --cmd windows closed, --windows windows of a known agent (label claude) showing
//            the real Claude idle screen, one short line rewritten in place on it every
//            --interval seconds: supervisor CPU, per line; RSS; the probe's latency and `ls`.
//            Each has the status file Claude Code keeps (sessions/<pid>.json), as the real one.
//   flood    bench/throughput.js (--mb MB through one watched pane, its own server): supervisor
//            CPU / tmux server CPU.
//
// Each measured figure is printed with its target and whether it is met; the last line is
// `BENCH_JSON scale {...}`. The tmux server, the supervisor and the child bench are ended
// however this ends (bench/lib.js).

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_DIR, BenchServer, CLK_TCK, FIXTURES, NERDR_BIN, ScreenControl, StatePoller, cpuSeconds, flags, line, median, num, printJson, round, rssBytes, sleep, startForeground, stopSupervisor, summary, supNodeArgs, verdict } from './lib.js';

const f = flags();
const N = num(f.windows, 101);
const SECONDS = num(f.seconds, 20);
const INTERVAL = num(f.interval, 20);
// as long as the interval by default: every window has printed a line before the CPU is measured,
// so a window's first line (its first evaluation, V8 meeting that code) is not counted as a quiet one
const WARMUP = num(f.warmup, INTERVAL);
const LATENCY_RUNS = num(f['latency-runs'], 10);
const LS_RUNS = num(f['ls-runs'], 10);
const MB = num(f.mb, 50);
const SUP_NODE_ARGS = supNodeArgs();

const TARGETS = {
  rssMB: 100,
  silentCmdCpuPct: 0.1,
  quietKnownCpuPct: 0.3,
  quietCmdCpuPct: 0.3,
  lsMs: 60,
  latencyOverMs: 50,
  floodRatio: 0.3,
};

const SCREENS = path.join(FIXTURES, 'screens', 'claude');
const IDLE = path.join(SCREENS, '06-idle-after-bash.ansi.txt');
const DIALOG = path.join(SCREENS, '04-permission-bash.ansi.txt');

/** A screen file as bench/screen-pane.js draws it: from the top-left corner, no final line break. */
function screenBytes(file) {
  const lines = fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  return '\x1b[H\x1b[2J' + lines.map((l) => `${l}\x1b[0m`).join('\r\n');
}

const mb = (b) => round(b / 1048576, 1);

async function rssMedian(pid, samples = 12) {
  const xs = [];
  for (let i = 0; i < samples; i++) {
    xs.push(rssBytes(pid));
    await sleep(250);
  }
  return median(xs);
}

/** With --sup-node-args holding a --require'd script: SIGUSR2 around each measured spell (it may profile it). */
const signalPhases = () => SUP_NODE_ARGS?.includes('--require');

/** CPU seconds of each of a process's threads, summed by thread name (main thread, GC workers, libuv's pool). */
function threadCpu(pid) {
  const out = {};
  let tids = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/\d+$/, '');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[name] = (out[name] ?? 0) + (Number(f[11]) + Number(f[12])) / CLK_TCK;
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Supervisor (and tmux server) CPU over `seconds`, as % of one core. */
async function cpuOver(srv, seconds, during = () => undefined) {
  if (signalPhases()) process.kill(srv.supervisorPid, 'SIGUSR2');
  const th0 = threadCpu(srv.supervisorPid);
  const s0 = cpuSeconds(srv.supervisorPid);
  const t0 = cpuSeconds(srv.serverPid);
  const w0 = performance.now();
  const before = during();
  await sleep(seconds * 1000);
  const wall = (performance.now() - w0) / 1000;
  const sup = cpuSeconds(srv.supervisorPid) - s0;
  const tmx = cpuSeconds(srv.serverPid) - t0;
  const threads = {};
  for (const [name, s] of Object.entries(threadCpu(srv.supervisorPid))) if (s - (th0[name] ?? 0) > 0) threads[name] = round(s - (th0[name] ?? 0), 2);
  if (signalPhases()) process.kill(srv.supervisorPid, 'SIGUSR2');
  return {
    threads, wall: round(wall, 1), supervisorCpuS: round(sup, 3), supervisorCpuPct: round((sup / wall) * 100, 3), tmuxCpuPct: round((tmx / wall) * 100, 3), lines: during() - before };
}

/**
 * Writes one line to one pane every interval/n seconds, round-robin over the panes' ttys, so each
 * pane prints a line every `interval` seconds and the lines are evenly spread.
 */
class LineWriter {
  constructor(ttys, intervalS, text) {
    this.fds = ttys.map((t) => fs.openSync(t, fs.constants.O_WRONLY | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK));
    this.text = text;
    this.count = 0;
    this.next = 0;
    this.timer = setInterval(() => this.tick(), (intervalS * 1000) / ttys.length);
  }

  tick() {
    const fd = this.fds[this.next];
    this.next = (this.next + 1) % this.fds.length;
    try {
      fs.writeSync(fd, this.text(++this.count));
    } catch {
      /* a full or closed pty: the line is lost, the count says what was sent */
    }
  }

  stop() {
    clearInterval(this.timer);
    for (const fd of this.fds) fs.closeSync(fd);
  }
}

/** The panes' ttys, by window id. */
function ttysOf(srv, windows) {
  const byPane = new Map();
  for (const l of srv.tmux(['list-panes', '-a', '-F', '#{pane_id} #{pane_tty}']).trim().split('\n')) {
    const [pane, tty] = l.split(' ');
    byPane.set(pane, tty);
  }
  return windows.map((w) => byPane.get(w.pane));
}

async function waitWatched(srv, count, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await srv.request('nerdr.ls', {});
    if (r.agents.length === count) return r.agents;
    if (Date.now() > deadline) throw new Error(`${r.agents.length} windows watched, not ${count}`);
    await sleep(100);
  }
}

/** Dialog written → blocked, `runs` times; the idle screen back and the state out of blocked between runs. */
async function latency(ctl, poller, win, runs) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const wrote = await ctl.draw(DIALOG);
    const { at } = await poller.waitFor(win.window, (s) => s === 'blocked', { timeoutMs: 10_000, intervalMs: 1 });
    ms.push(at - wrote);
    await ctl.draw(IDLE);
    await poller.waitFor(win.window, (s) => s !== 'blocked', { timeoutMs: 15_000, intervalMs: 50 });
    await sleep(300);
  }
  return { ...summary(ms), ms: ms.map((x) => round(x, 1)) };
}

/** `nerdr ls --json` wall time (a whole CLI process), `runs` times. */
function lsWall(srv, runs, expect) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [NERDR_BIN, '-L', srv.name, 'ls', '--json'], { env: srv.env, encoding: 'utf8', maxBuffer: 64 << 20 });
    ms.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`nerdr ls --json: ${r.stderr}`);
    const n = JSON.parse(r.stdout).length;
    if (n !== expect) throw new Error(`nerdr ls --json listed ${n} windows, not ${expect}`);
  }
  return summary(ms);
}

/** `node -e 0` wall time, `runs` times: what any command of a Node program costs before its own code. */
function nodeStartWall(runs) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    ms.push(performance.now() - t0);
  }
  return summary(ms);
}

/** bench/floor-reader.js on the session of `win` for `seconds`: its CPU per %output line, or null if it failed. */
function floorReader(srv, win, seconds) {
  const session = srv.tmux(['display', '-p', '-t', win.window, '#{session_name}']).trim();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(BENCH_DIR, 'floor-reader.js'), '--socket', srv.tmuxSocket, '--session', session, '--seconds', String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
    srv.extraPids.add(child.pid);
    let buf = '';
    child.stdout.on('data', (d) => (buf += d));
    child.on('close', () => {
      srv.extraPids.delete(child.pid);
      const m = /^FLOOR_JSON (.*)$/m.exec(buf);
      resolve(m ? JSON.parse(m[1]) : null);
    });
  });
}

/** <dir>/sessions/<pid>.json for the program of each window's pane, as Claude Code writes it. */
function writeStatusFiles(windows, dir) {
  fs.mkdirSync(path.join(dir, 'sessions'), { recursive: true });
  for (const w of windows) {
    const kids = fs.readFileSync(`/proc/${w.panePid}/task/${w.panePid}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number);
    for (const pid of kids) {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const procStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      fs.writeFileSync(path.join(dir, 'sessions', `${pid}.json`), JSON.stringify({ pid, sessionId: `bench-${pid}`, procStart, version: 'bench', status: 'idle', statusUpdatedAt: Date.now() }));
    }
  }
}

async function newWindows(srv, count, spec) {
  const out = [];
  for (let i = 0; i < count; i++) out.push(await srv.newWindow(spec(i)));
  return out;
}

function closeWindows(srv, windows) {
  for (let i = 0; i < windows.length; i += 50) {
    const args = [];
    for (const w of windows.slice(i, i + 50)) args.push(...(args.length ? [';'] : []), 'kill-window', '-t', w.window);
    srv.tmux(args);
  }
}

function throughput() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(BENCH_DIR, 'throughput.js'), '--mb', String(MB), '--no-baseline'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const kill = () => child.kill('SIGTERM');
    process.on('exit', kill);
    let json = null;
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d.toString('utf8');
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const l = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = /^BENCH_JSON throughput (.*)$/.exec(l);
        if (m) json = JSON.parse(m[1]);
      }
    });
    child.on('close', () => {
      process.off('exit', kill);
      resolve(json);
    });
  });
}

async function main() {
  const srv = new BenchServer('scale').start();
  const out = { windows: N, seconds: SECONDS, warmupSeconds: WARMUP, lineIntervalSeconds: INTERVAL, targets: TARGETS };
  let ctl = null;
  let poller = null;
  let writer = null;
  try {
    if (SUP_NODE_ARGS) await startForeground(srv, SUP_NODE_ARGS, f['sup-log']);
    else await srv.startSupervisor();
    process.stdout.write(`scale: ${N} windows, one line every ${INTERVAL} s each (${round(N / INTERVAL, 2)} lines/s in all); CPU over ${SECONDS} s after ${WARMUP} s; supervisor pid ${srv.supervisorPid}\n`);

    // ---- the probe alone ---------------------------------------------------------------------
    ctl = await ScreenControl.open(srv.workDir);
    const probe = await srv.newWindow({ agent: 'claude', name: 'probe', argv: [process.execPath, path.join(BENCH_DIR, 'screen-pane.js'), ctl.path, IDLE] });
    poller = await StatePoller.open(srv);
    await ctl.connected;
    await ctl.draw(IDLE); // after the resize
    await poller.waitFor(probe.window, (s) => s === 'idle' || s === 'done', { timeoutMs: 20_000, intervalMs: 50 });
    await sleep(1000);
    out.rss1MB = mb(await rssMedian(srv.supervisorPid));
    out.latency1 = await latency(ctl, poller, probe, LATENCY_RUNS);
    out.ls1 = lsWall(srv, LS_RUNS, 1);
    out.nodeStart = nodeStartWall(LS_RUNS);
    line('1 window: RSS', `${out.rss1MB} MB`);
    line('1 window: dialog -> light ms', `median ${out.latency1.median} (min ${out.latency1.min}, max ${out.latency1.max})`);
    line('1 window: nerdr ls --json ms', `median ${round(out.ls1.median, 1)} (min ${round(out.ls1.min, 1)}, max ${round(out.ls1.max, 1)})`);
    line('  yardstick: node -e 0 ms', `median ${round(out.nodeStart.median, 1)} (min ${round(out.nodeStart.min, 1)}, max ${round(out.nodeStart.max, 1)}): Node's own start, under every nerdr command`);

    // ---- silent --cmd windows ------------------------------------------------------------------
    if (!f['skip-cmd']) {
      const t0 = performance.now();
      const cmds = await newWindows(srv, N, (i) => ({ agent: 'unknown', name: `cmd${i}`, argv: ['/bin/sh', '-c', 'exec sleep 1000000'], idleAfterMs: 3000 }));
      await waitWatched(srv, N + 1);
      out.createSeconds = round((performance.now() - t0) / 1000, 1);
      await sleep(WARMUP * 1000);
      out.silentCmd = await cpuOver(srv, SECONDS);
      out.silentCmd.rssMB = mb(await rssMedian(srv.supervisorPid));
      line('  by thread (CPU s)', JSON.stringify(out.silentCmd.threads));
      line(`${N} silent --cmd windows: supervisor CPU`, `${out.silentCmd.supervisorCpuPct} % (target <= ${TARGETS.silentCmdCpuPct} %: ${verdict(out.silentCmd.supervisorCpuPct <= TARGETS.silentCmdCpuPct)}); tmux ${out.silentCmd.tmuxCpuPct} %; RSS ${out.silentCmd.rssMB} MB`);

      // ---- the same, quiet: a line every INTERVAL s each -----------------------------------------
      writer = new LineWriter(ttysOf(srv, cmds), INTERVAL, (n) => `line ${n} of the bench\r\n`);
      await sleep(WARMUP * 1000);
      out.quietCmd = await cpuOver(srv, SECONDS, () => writer.count);
      out.quietCmd.floor = await floorReader(srv, cmds[0], SECONDS);
      writer.stop();
      writer = null;
      out.quietCmd.msPerLine = round((out.quietCmd.supervisorCpuS * 1000) / out.quietCmd.lines, 2);
      out.quietCmd.rssMB = mb(await rssMedian(srv.supervisorPid));
      line('  by thread (CPU s)', JSON.stringify(out.quietCmd.threads));
      line(`${N} quiet --cmd windows: supervisor CPU`, `${out.quietCmd.supervisorCpuPct} % = ${out.quietCmd.msPerLine} ms a line (target <= ${TARGETS.quietCmdCpuPct} %: ${verdict(out.quietCmd.supervisorCpuPct <= TARGETS.quietCmdCpuPct)}); tmux ${out.quietCmd.tmuxCpuPct} %; RSS ${out.quietCmd.rssMB} MB`);
      if (out.quietCmd.floor) line('  yardstick: a bare Node control client', `${round(out.quietCmd.floor.msPerOutput, 3)} ms a line (${round((out.quietCmd.floor.cpuMs / 10 / out.quietCmd.floor.seconds), 3)} %) reading the same lines, nothing more`);

      closeWindows(srv, cmds);
      await waitWatched(srv, 1);
    }

    // ---- quiet windows of a known agent ----------------------------------------------------------
    const claudeDir = path.join(srv.workDir, 'claude-config');
    const known = await newWindows(srv, N, (i) => ({ agent: 'claude', name: `claude${i}`, argv: ['/bin/sh', '-c', 'exec sleep 1000000'], env: { CLAUDE_CONFIG_DIR: claudeDir } }));
    await waitWatched(srv, N + 1);
    // each keeps the status file Claude Code (2.1.3xx) keeps, so the supervisor finds it once and
    // reads nothing more, as with the real agent (src/supervisor/agent-status.ts)
    writeStatusFiles(known, claudeDir);
    const ttys = ttysOf(srv, known);
    const idle = screenBytes(IDLE);
    for (const t of ttys) {
      const fd = fs.openSync(t, fs.constants.O_WRONLY | fs.constants.O_NOCTTY);
      fs.writeSync(fd, idle);
      fs.closeSync(fd);
    }
    await sleep(WARMUP * 1000);
    out.silentKnown = await cpuOver(srv, SECONDS / 2);
    line(`${N} silent windows of claude: supervisor CPU`, `${out.silentKnown.supervisorCpuPct} % over ${out.silentKnown.wall} s (context)`);
    // one short line rewritten in place (row 12 is empty on this screen), the cursor put back
    writer = new LineWriter(ttys, INTERVAL, (n) => `\x1b7\x1b[12;3H· tick ${n}\x1b8`);
    await sleep(WARMUP * 1000);
    out.quietKnown = await cpuOver(srv, SECONDS, () => writer.count);
    out.quietKnown.msPerLine = round((out.quietKnown.supervisorCpuS * 1000) / out.quietKnown.lines, 2);
    const states = {};
    for (const a of (await srv.request('nerdr.ls', {})).agents) states[a.state] = (states[a.state] ?? 0) + 1;
    out.quietKnown.states = states;
    line('  by thread (CPU s)', JSON.stringify(out.quietKnown.threads));
    line(`${N} quiet windows of claude: supervisor CPU`, `${out.quietKnown.supervisorCpuPct} % = ${out.quietKnown.msPerLine} ms a line (target <= ${TARGETS.quietKnownCpuPct} %: ${verdict(out.quietKnown.supervisorCpuPct <= TARGETS.quietKnownCpuPct)}); tmux ${out.quietKnown.tmuxCpuPct} %; states ${JSON.stringify(states)}`);

    // ---- with the hundred, while they print: RSS, the probe's latency, ls ------------------------
    out.rssNMB = mb(await rssMedian(srv.supervisorPid, 20));
    if (signalPhases()) process.kill(srv.supervisorPid, 'SIGWINCH'); // a memory dump, if the script writes one
    out.rssMB = Math.max(out.rssNMB, out.silentCmd?.rssMB ?? 0, out.quietCmd?.rssMB ?? 0);
    line(`RSS with ${N} windows (+ the probe)`, `${out.rssNMB} MB now${out.silentCmd ? `; ${out.silentCmd.rssMB} / ${out.quietCmd.rssMB} MB with the --cmd ones` : ''} (target <= ${TARGETS.rssMB} MB: ${verdict(out.rssMB <= TARGETS.rssMB)})`);
    out.latencyN = await latency(ctl, poller, probe, LATENCY_RUNS);
    out.latencyOverMs = round(out.latencyN.median - out.latency1.median, 1);
    line(`${N} windows: dialog -> light ms`, `median ${out.latencyN.median} (min ${out.latencyN.min}, max ${out.latencyN.max}): ${out.latencyOverMs} ms over 1 window (target <= ${TARGETS.latencyOverMs}: ${verdict(out.latencyOverMs <= TARGETS.latencyOverMs)})`);
    out.lsN = lsWall(srv, LS_RUNS, N + 1);
    line(`${N} windows: nerdr ls --json ms`, `median ${round(out.lsN.median, 1)} (min ${round(out.lsN.min, 1)}, max ${round(out.lsN.max, 1)}) (target <= ${TARGETS.lsMs}: ${verdict(out.lsN.median <= TARGETS.lsMs)}); node -e 0 took ${round(out.nodeStart.median, 1)} ms`);
    writer.stop();
    writer = null;
    // a profiled supervisor writes its profile only when it ends by itself
    if (SUP_NODE_ARGS) await stopSupervisor(srv);
  } finally {
    writer?.stop();
    await poller?.close().catch(() => undefined);
    ctl?.close();
    srv.stopSync();
  }

  if (!f['skip-throughput']) {
    process.stdout.write(`flood: ${MB} MB through one watched pane (bench/throughput.js, its own server)\n`);
    const t = await throughput();
    out.flood = t ? { ratio: t.ratioMedian, mbPerSec: t.mbPerSecMedian, supervisorCpu: t.runs?.[0]?.watched?.supervisorCpu, tmuxServerCpu: t.runs?.[0]?.watched?.tmuxServerCpu } : null;
    if (out.flood) line('flood: supervisor CPU / tmux server CPU', `${out.flood.ratio} (${out.flood.supervisorCpu} s / ${out.flood.tmuxServerCpu} s) (target <= ${TARGETS.floodRatio}: ${verdict(out.flood.ratio <= TARGETS.floodRatio)})`);
    else line('flood', 'FAILED');
  }

  out.met = {
    rss: out.rssMB <= TARGETS.rssMB,
    silentCmdCpu: out.silentCmd ? out.silentCmd.supervisorCpuPct <= TARGETS.silentCmdCpuPct : null,
    quietKnownCpu: out.quietKnown.supervisorCpuPct <= TARGETS.quietKnownCpuPct,
    quietCmdCpu: out.quietCmd ? out.quietCmd.supervisorCpuPct <= TARGETS.quietCmdCpuPct : null,
    ls: out.lsN.median <= TARGETS.lsMs,
    latency: out.latencyOverMs <= TARGETS.latencyOverMs,
    ...(out.flood ? { flood: out.flood.ratio <= TARGETS.floodRatio } : {}),
  };
  printJson('scale', out);
}

await main();
