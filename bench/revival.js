// Revival (issue "Lights that never lie"): a supervisor kill -9'd is back and ready within 2 s.
// The supervisor runs in tmux's holder pane (src/supervisor/holder.ts), as `nerdr` starts it;
// --windows watched claude windows show a real idle screen. Each of --kills rounds reads the
// supervisor's pid from tmux, kills it with SIGKILL, and polls `nerdr.info` on its socket every
// 10 ms until a different pid answers ready. Each revival is split in three:
//
//   respawn  the kill → the new process exists (tmux's pane-died hook, its respawn, sh's exec);
//            from /proc/<pid>/stat's start time, in clock ticks (10 ms)
//   load     → the supervisor's "starting" log line (Node's start and loading its modules)
//   connect  → ready (its control client, the windows read back, the lights)
//
//   node bench/revival.js [--windows 10] [--kills 8] [--settle 3500]
//
// Target: every revival ≤ 2000 ms. --settle is the wait after a revival before the next kill: so
// the new supervisor's catch-up (the spool, the first evaluations) is not what the next one pays,
// and over 3 s, so no kill counts as a crash loop's (which waits before it starts again).
// NERDR_UNBUNDLED=1 times tsc's modules instead of the bundle (the supervisor inherits it).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BenchServer, CLK_TCK, FIXTURES, alive, flags, line, load, median, nowMs, num, printJson, round, sleep, summary, verdict } from './lib.js';

const f = flags();
const WINDOWS = num(f.windows, 10);
const KILLS = num(f.kills, 8);
const SETTLE_MS = num(f.settle, 3500);
const TARGET_MS = 2000;

const { serverFiles } = await load('paths.js');
const { request } = await load('supervisor/socket/index.js');

/** The wall-clock ms a process started at, from /proc (its start in ticks after boot). */
function startedAtMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  return nowMs() - uptime * 1000 + (ticks / CLK_TCK) * 1000;
}

/** The time of the log's "supervisor <pid> starting" line, or NaN. */
function loggedStartMs(log, pid) {
  const m = new RegExp(`^(\\S+) info supervisor ${pid} starting`, 'm').exec(readFileSync(log, 'utf8'));
  return m ? Date.parse(m[1]) : NaN;
}

const srv = new BenchServer('revival').start();
try {
  await srv.startSupervisor();
  const files = serverFiles(srv.tmuxSocket, srv.env);
  const idle = path.join(FIXTURES, 'screens', 'claude', '06-idle-after-bash.ansi.txt');
  for (let i = 0; i < WINDOWS; i++) {
    await srv.newWindow({ agent: 'claude', name: `claude${i}`, argv: ['/bin/sh', '-c', `clear; cat '${idle}'; exec sleep 1000000`] });
  }
  process.stdout.write(`revival: ${WINDOWS} windows, ${KILLS} kills, ${SETTLE_MS} ms between\n`);
  await sleep(SETTLE_MS);

  const rows = [];
  for (let k = 0; k < KILLS; k++) {
    const old = Number(srv.tmux(['show-options', '-gqv', '@nerdr_supervisor_pid']).trim());
    if (!(old > 0) || !alive(old)) throw new Error(`no supervisor to kill (pid "${old}")`);
    const at = nowMs();
    process.kill(old, 'SIGKILL');
    let pid = 0;
    let spawned = NaN;
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`no supervisor ready 15 s after killing ${old}`);
      const info = await request(files.socket, 'nerdr.info', {}, { timeoutMs: 500 }).catch(() => null);
      if (info && info.ready && info.pid !== old) {
        pid = info.pid;
        break;
      }
      if (Number.isNaN(spawned) && info && info.pid !== old) spawned = info.pid;
      await sleep(10);
    }
    const ready = nowMs();
    srv.supervisorPid = pid;
    const began = startedAtMs(pid);
    const logged = loggedStartMs(files.log, pid);
    const row = { total: ready - at, respawn: began - at, load: logged - began, connect: ready - logged };
    rows.push(row);
    process.stdout.write(`  kill ${k + 1}: ${Math.round(row.total)} ms (respawn ${Math.round(row.respawn)}, load ${Math.round(row.load)}, connect ${Math.round(row.connect)})\n`);
    await sleep(SETTLE_MS);
  }
  const of = (key) => summary(rows.map((r) => r[key]));
  const worst = Math.max(...rows.map((r) => r.total));
  line('kill -9 → ready, median (ms)', `${round(median(rows.map((r) => r.total)), 0)}`);
  line('  of which respawn / load / connect (median)', `${round(of('respawn').median, 0)} / ${round(of('load').median, 0)} / ${round(of('connect').median, 0)}`);
  line(`worst of ${KILLS} (target ≤ ${TARGET_MS} ms)`, `${round(worst, 0)} ${verdict(worst <= TARGET_MS)}`);
  printJson('revival', { windows: WINDOWS, kills: KILLS, total: of('total'), respawn: of('respawn'), load: of('load'), connect: of('connect'), met: worst <= TARGET_MS });
} finally {
  srv.stopSync();
}
