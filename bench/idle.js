// Idle cost: N idle agents (default 20 demo agents with --auto 0: they draw their prompt once
// and wait for a key) for S seconds (default 60) after a warm-up (default 10 s).
//
//   node bench/idle.js [--agents 20] [--seconds 60] [--warmup 10] [--cmd 'sleep 1000']
//
// The supervisor runs IN THIS PROCESS, built as src/supervisor/main.ts builds it (manifest
// registry with its file watcher, Supervisor, socket server + API), so the bench can read
// Supervisor.linesSent: every control-mode command line the supervisor sends. Windows are
// created through its socket (nerdr.new), like `nerdr new demo` does. During the measured
// window this process does nothing but sleep, so its CPU time is the supervisor's.
// Figures: supervisor CPU % of one core (target < 0.2 %), tmux command lines sent during the
// measured window (target 0: no polling), and the tmux server's CPU over the same window.

import { BenchServer, cpuSeconds, flags, line, num, printJson, round, sleep, verdict, DIST } from './lib.js';
import { load } from './lib.js';
import path from 'node:path';

const f = flags();
const AGENTS = num(f.agents, 20);
const SECONDS = num(f.seconds, 60);
const WARMUP = num(f.warmup, 10);
const CMD = typeof f.cmd === 'string' ? f.cmd : null;
const TARGET_CPU_PCT = 0.2;

async function main() {
  const srv = new BenchServer('idle').start();
  process.env.NERDR_STATE_DIR = srv.stateDir;
  const { Supervisor } = await load('supervisor/supervisor.js');
  const { ManifestRegistry } = await load('detect/index.js');
  const { serveSocket } = await load('supervisor/main.js');
  const { serverFiles, ensureStateDir } = await load('paths.js');

  ensureStateDir();
  const files = serverFiles(srv.tmuxSocket);
  const logLines = [];
  const log = (level, msg) => logLines.push(`${level} ${msg}`);
  const manifests = new ManifestRegistry({ onWarning: (m) => log('warn', m) });
  const sup = new Supervisor({ tmuxSocket: srv.tmuxSocket, log, installLights: true, manifests, stateDir: files.dir });
  await manifests.watch().catch(() => undefined);
  const server = await serveSocket(sup, files.socket, log);
  srv.socketFile = files.socket;
  let result;
  try {
    await sup.start();
    srv.clientPid = sup.clientPid;
    const demo = path.join(DIST, 'demo', 'agent.js');
    for (let i = 0; i < AGENTS; i++) {
      if (CMD) await srv.newWindow({ agent: 'unknown', name: `idle${i}`, argv: ['/bin/sh', '-c', CMD] });
      else await srv.newWindow({ agent: 'demo', name: `idle${i}`, argv: [process.execPath, demo, '--auto', '0'] });
    }
    await sleep(WARMUP * 1000);
    const states = [...sup.agents.values()].map((a) => a.state);
    const lines0 = sup.linesSent;
    const cpu0 = process.cpuUsage();
    const tmx0 = cpuSeconds(srv.serverPid);
    const t0 = performance.now();
    await sleep(SECONDS * 1000);
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const tmx = cpuSeconds(srv.serverPid) - tmx0;
    const supCpu = (cpu.user + cpu.system) / 1e6;
    const linesDuring = sup.linesSent - lines0;
    const pct = (supCpu / wall) * 100;
    const counts = {};
    for (const s of states) counts[s] = (counts[s] ?? 0) + 1;
    result = {
      agents: AGENTS,
      kind: CMD ? `--cmd ${CMD}` : 'demo --auto 0',
      warmupSeconds: WARMUP,
      seconds: round(wall, 1),
      statesAfterWarmup: counts,
      supervisorCpuSeconds: round(supCpu, 3),
      supervisorCpuPct: round(pct, 3),
      linesSentDuring: linesDuring,
      linesSentTotal: sup.linesSent,
      tmuxServerCpuSeconds: round(tmx, 2),
      tmuxServerCpuPct: round((tmx / wall) * 100, 3),
      targetCpuPct: TARGET_CPU_PCT,
      met: pct < TARGET_CPU_PCT && linesDuring === 0,
    };
  } finally {
    await sup.stop().catch(() => undefined);
    await server.close().catch(() => undefined);
    await manifests.close().catch(() => undefined);
    srv.stopSync();
  }
  process.stdout.write(`idle: ${AGENTS} idle agents (${result.kind}), ${result.seconds} s measured after a ${WARMUP} s warm-up; supervisor in-process\n`);
  line('states after warm-up', JSON.stringify(result.statesAfterWarmup));
  line('supervisor CPU', `${result.supervisorCpuSeconds} s = ${result.supervisorCpuPct} % (target < ${TARGET_CPU_PCT} %: ${verdict(result.supervisorCpuPct < TARGET_CPU_PCT)})`);
  line('tmux command lines sent while idle', `${result.linesSentDuring} (target 0: ${verdict(result.linesSentDuring === 0)}); ${result.linesSentTotal} in all, start-up included`);
  line('tmux server CPU (context)', `${result.tmuxServerCpuSeconds} s = ${result.tmuxServerCpuPct} %`);
  printJson('idle', result);
  process.exit(0);
}

await main();
