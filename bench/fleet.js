// The fleet's cost and speed over loopback SSH (docs/fleet.md): a real sshd on 127.0.0.1 and
// H "hosts" (default 3), each its own private tmux server with A idle demo agents (default 10)
// and its own nerdr supervisor, reached through ssh aliases that set each host's state folder.
// The local supervisor (its own private tmux server) follows them all.
//
//   node bench/fleet.js [--hosts 3] [--agents 10] [--seconds 60] [--warmup 30] [--runs 10]
//
// The warm-up is long: V8 keeps collecting for some 20 s after the start-up's allocations.
//
// Figures: the local supervisor's CPU % of one core while every remote agent is idle (target
// <= 0.2 %), the ssh clients' CPU beside it (info), and how long after a remote agent turns
// blocked (its dialog on the host's screen: the host's detection, the ssh link and the local
// supervisor together) the local @nerdr_fleet shows it (target: median <= 300 ms). Both sides
// are polled back to back with one tmux command each (about 5 ms apart).

import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BenchServer, cpuSeconds, DIST, flags, line, load, num, printJson, round, sleep, summary, verdict } from './lib.js';

const f = flags();
const HOSTS = num(f.hosts, 3);
const AGENTS = num(f.agents, 10);
const SECONDS = num(f.seconds, 60);
const WARMUP = num(f.warmup, 30);
const RUNS = num(f.runs, 10);
const TARGET_CPU_PCT = 0.2;
const TARGET_LATENCY_MS = 300;
const SSHD = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((p) => existsSync(p));

/** A tmux command on a bench server without blocking this process (the local supervisor runs here). */
function tmuxAsync(srv, args) {
  return new Promise((resolve) => execFile('tmux', ['-L', srv.name, ...args], { env: srv.env }, (_err, stdout) => resolve(String(stdout ?? ''))));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function listening(port) {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });
}

/** Every process under pid (the supervisor's ssh clients). */
function children(pid) {
  const out = [];
  for (const d of spawnSync('ls', ['/proc'], { encoding: 'utf8' }).stdout.split('\n')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

async function main() {
  if (!SSHD) throw new Error('no sshd (apt-get install openssh-server)');
  if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-bench-fleet-'));
  const keygen = (file) => spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file], { stdio: 'ignore' });
  keygen(path.join(dir, 'host_key'));
  keygen(path.join(dir, 'user_key'));
  writeFileSync(path.join(dir, 'authorized_keys'), readFileSync(path.join(dir, 'user_key.pub')));
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'sshd_config'),
    [`Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${path.join(dir, 'host_key')}`, `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`, `PidFile ${path.join(dir, 'sshd.pid')}`, 'StrictModes no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'UsePAM no', 'PermitRootLogin prohibit-password', 'AcceptEnv NERDR_STATE_DIR PATH', ''].join('\n'),
  );
  const sshd = spawn(SSHD, ['-f', path.join(dir, 'sshd_config'), '-D', '-e'], { stdio: 'ignore' });
  const hosts = [];
  let local = null;
  let sup = null;
  let socket = null;
  let fleet = null;
  try {
    for (let i = 0; i < 50 && !(await listening(port)); i++) await sleep(100);
    // the hosts: their tmux servers, supervisors and idle agents
    const demo = path.join(DIST, 'demo', 'agent.js');
    for (let h = 0; h < HOSTS; h++) {
      const srv = new BenchServer(`host${h}`).start();
      await srv.startSupervisor();
      const wins = [];
      for (let i = 0; i < AGENTS; i++) wins.push(await srv.newWindow({ agent: 'demo', name: `agent${i}`, argv: [process.execPath, demo, '--auto', '0', '--ask', '--work', '0.2'] }));
      hosts.push({ srv, wins });
    }
    const me = os.userInfo().username;
    const sshConfig = path.join(dir, 'ssh_config');
    writeFileSync(
      sshConfig,
      [
        ...hosts.flatMap(({ srv }, h) => [`Host host${h}`, '  HostName 127.0.0.1', `  Port ${port}`, `  User ${me}`, `  SetEnv NERDR_STATE_DIR="${srv.stateDir}" PATH="${process.env.PATH}"`]),
        'Host *',
        `  IdentityFile ${path.join(dir, 'user_key')}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${path.join(dir, 'known_hosts')}`,
        '  StrictHostKeyChecking accept-new',
        '  LogLevel ERROR',
        '',
      ].join('\n'),
    );
    // this machine: a supervisor that follows them, IN THIS PROCESS (as bench/idle.js builds it,
    // with the fleet as src/supervisor/main.ts adds it): during the idle window this process does
    // nothing but sleep, so its CPU time is the supervisor's
    local = new BenchServer('fleet-local').start();
    const configDir = path.join(dir, 'config');
    mkdirSync(configDir);
    const nerdr = path.resolve(DIST, '..', 'bin', 'nerdr.js');
    writeFileSync(
      path.join(configDir, 'config.toml'),
      `[fleet]\nssh = ["ssh", "-F", ${JSON.stringify(sshConfig)}]\n` + hosts.map(({ srv }, h) => `[fleet.hosts.host${h}]\ntarget = "host${h}"\nnerdr = ${JSON.stringify(nerdr)}\nsocket = "${srv.name}"\n`).join(''),
    );
    process.env.NERDR_CONFIG_DIR = configDir;
    process.env.NERDR_STATE_DIR = local.stateDir;
    const { Supervisor } = await load('supervisor/supervisor.js');
    const { ManifestRegistry } = await load('detect/index.js');
    const { serveSocket, followFleet } = await load('supervisor/main.js');
    const { serverFiles, ensureStateDir } = await load('paths.js');
    ensureStateDir();
    const files = serverFiles(local.tmuxSocket);
    const logLines = [];
    const log = (level, msg) => logLines.push(`${level} ${msg}`);
    const manifests = new ManifestRegistry({ onWarning: (m) => log('warn', m) });
    sup = new Supervisor({ tmuxSocket: local.tmuxSocket, log, installLights: true, manifests, stateDir: files.dir });
    socket = await serveSocket(sup, files.socket, log);
    local.socketFile = files.socket;
    await sup.start();
    local.clientPid = sup.clientPid;
    fleet = followFleet(sup, socket, log);
    const fleetLs = async () => (await local.request('nerdr.fleet', {})).hosts;
    for (let i = 0; i < 300; i++) {
      const hs = await fleetLs();
      if (hs.length === HOSTS && hs.every((h) => h.state === 'connected' && h.agents.length === AGENTS)) break;
      await sleep(100);
    }
    const hs = await fleetLs();
    if (!hs.every((h) => h.state === 'connected' && h.agents.length === AGENTS)) throw new Error(`the hosts did not connect: ${JSON.stringify(hs.map((h) => [h.name, h.state, h.agents.length, h.error?.message]))}`);
    line('hosts connected', `${HOSTS} × ${AGENTS} agents`);

    // 1. idle: every remote agent at its prompt, nothing changes
    await sleep(WARMUP * 1000);
    const sshPids = children(process.pid).filter((p) => path.basename(readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')[0] ?? '') === 'ssh');
    const lines0 = sup.linesSent;
    const cpu0 = process.cpuUsage();
    const ssh0 = sshPids.reduce((s, p) => s + cpuSeconds(p), 0);
    // NERDR_BENCH_PROFILE=file.cpuprofile: a CPU profile of the idle window only
    const prof = process.env.NERDR_BENCH_PROFILE ? new (await import('node:inspector')).Session() : null;
    if (prof) {
      prof.connect();
      await new Promise((r) => prof.post('Profiler.enable', () => prof.post('Profiler.start', r)));
    }
    const t0 = performance.now();
    await sleep(SECONDS * 1000);
    const wall = (performance.now() - t0) / 1000;
    const used = process.cpuUsage(cpu0);
    if (prof) {
      const { profile } = await new Promise((r) => prof.post('Profiler.stop', (_e, v) => r(v)));
      writeFileSync(process.env.NERDR_BENCH_PROFILE, JSON.stringify(profile));
    }
    const supCpu = (used.user + used.system) / 1e6;
    const linesDuring = sup.linesSent - lines0;
    const sshCpu = sshPids.reduce((s, p) => s + cpuSeconds(p), 0) - ssh0;
    const pct = (supCpu / wall) * 100;
    line('idle: local supervisor CPU %', round(pct, 3));
    line(`idle: its ssh clients CPU % (all ${sshPids.length})`, round((sshCpu / wall) * 100, 3));
    line('idle: tmux command lines sent', linesDuring);

    // 2. a remote agent turns blocked -> the local summary shows it
    const { srv, wins } = hosts[0];
    const win = wins[0];
    const fleetText = () => local.tmux(['show', '-gqv', '@nerdr_fleet']).trim();
    // host0's part of the summary: from its name to the next host's
    const host0Blocked = (t) => {
      const at = t.indexOf('host0');
      const end = t.indexOf('host1');
      return at >= 0 && t.slice(at, end > at ? end : undefined).includes('✋');
    };
    const lat = [];
    for (let r = 0; r < RUNS; r++) {
      // start from calm: the agent at its prompt here and there
      for (let i = 0; i < 600 && ((await tmuxAsync(srv, ['capture-pane', '-p', '-t', win.pane])).includes('Do you want to proceed?') || host0Blocked(fleetText())); i++) await sleep(25);
      if (host0Blocked(fleetText())) throw new Error(`run ${r}: still blocked before it starts (remote ${srv.state(win.window)}): ${fleetText()}`);
      srv.tmux(['send-keys', '-t', win.pane, '-l', `task ${r}`]);
      srv.tmux(['send-keys', '-t', win.pane, 'Enter']);
      let remoteAt = 0;
      let localAt = 0;
      const deadline = Date.now() + 20_000;
      // polled without blocking: the local supervisor runs in this process
      while (Date.now() < deadline && !localAt) {
        if (!remoteAt && (await tmuxAsync(srv, ['capture-pane', '-p', '-t', win.pane])).includes('Do you want to proceed?')) remoteAt = performance.now();
        if (host0Blocked(await tmuxAsync(local, ['show', '-gqv', '@nerdr_fleet']))) localAt = performance.now();
      }
      if (!remoteAt || !localAt) throw new Error(`run ${r}: remote blocked ${!!remoteAt}, local summary ${!!localAt}: ${fleetText()}`);
      lat.push(Math.max(0, localAt - remoteAt));
      // answer no: back at the prompt, and the summary without the blocked one
      srv.tmux(['send-keys', '-t', win.pane, '2']);
    }
    const s = summary(lat.map((x) => round(x, 1)));
    line('remote blocked -> local summary ms (median)', s.median);
    line('  (min / p90 / max)', `${s.min} / ${s.p90} / ${s.max}`);
    const met = pct <= TARGET_CPU_PCT && s.median <= TARGET_LATENCY_MS;
    line('targets', verdict(met));
    printJson('fleet', {
      hosts: HOSTS,
      agentsPerHost: AGENTS,
      seconds: round(wall, 1),
      supervisorCpuSeconds: round(supCpu, 3),
      supervisorCpuPct: round(pct, 3),
      sshCpuPct: round((sshCpu / wall) * 100, 3),
      sshClients: sshPids.length,
      linesSentDuring: linesDuring,
      latencyMs: s,
      runs: RUNS,
      targetCpuPct: TARGET_CPU_PCT,
      targetLatencyMs: TARGET_LATENCY_MS,
      met,
    });
  } finally {
    fleet?.stop();
    await sup?.stop().catch(() => undefined);
    await socket?.close().catch(() => undefined);
    local?.stopSync();
    for (const { srv } of hosts) srv.stopSync();
    sshd.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`fleet bench failed: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
