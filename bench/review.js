// The review panel's cost: idle CPU while another window's agent works and edits files, and
// how long a refresh takes in a repository of 50,000 files.
//
//   node bench/review.js [--seconds 60] [--warmup 30] [--files 50000] [--runs 10] [--only idle|big]
//
// idle: a private tmux server; window "quiet" (a demo agent, at its prompt) in repository A with
// `nerdr review` split beside it (40 %), so the panel follows that window; window "busy" (a demo
// agent turning every second: working, done, idle …) in repository B, and a plain window that
// appends to a file in B every 200 ms (the agent's edits). The panel's CPU (its node process,
// /proc utime+stime, with the git runs it waited for) is measured over S seconds, once it has
// settled after its start (a warm-up, then a 5 s spell without a CPU tick; V8 still collects the
// start-up heap some 15–35 s after the start, 0.09 s of CPU). Target: ≤ 0.1 %.
//
// big: a repository of N files (500 folders of N/500 files, committed), 10 of them changed and 5
// untracked. In this process (dist/review): gatherReview() — what every refresh runs — median of
// R warm runs; the file watcher's first scan (ready) and its RSS; a file written → the new data
// shown (watcher + 200 ms debounce + gather), median of R; and `nerdr review --once --json` wall
// time (a node start included).

import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BenchServer, CLK_TCK, NERDR_BIN, cpuSeconds, flags, line, load, num, printJson, round, sleep, summary } from './lib.js';

const f = flags();
const SECONDS = num(f.seconds, 60);
const WARMUP = num(f.warmup, 30);
const FILES = num(f.files, 50_000);
const RUNS = num(f.runs, 10);
const ONLY = typeof f.only === 'string' ? f.only : null;
const TARGET_CPU_PCT = 0.1;

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
const git = (repo, ...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: GIT_ENV, maxBuffer: 256 << 20 });

function makeRepo(dir, files) {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'init');
}

/** CPU seconds of a process itself and of its children it has waited for (the git runs of a refresh). */
function cpuParts(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const v = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { self: (Number(v[11]) + Number(v[12])) / CLK_TCK, children: (Number(v[13]) + Number(v[14])) / CLK_TCK };
}
const cpuWithChildren = (pid) => {
  const c = cpuParts(pid);
  return c.self + c.children;
};

async function idle() {
  const srv = new BenchServer('review').start();
  const repoA = path.join(srv.workDir, 'quiet-repo');
  const repoB = path.join(srv.workDir, 'busy-repo');
  makeRepo(repoA, { 'a.txt': 'a\n', 'src/x.ts': 'export const x = 1;\n' });
  makeRepo(repoB, { 'b.txt': 'b\n', 'src/y.ts': 'export const y = 1;\n' });
  writeFileSync(path.join(repoA, 'a.txt'), 'a\nchanged\n');
  // through the CLI, as a user does (it starts the supervisor)
  const quiet = JSON.parse(await srv.nerdr(['new', 'demo', '-d', '-t', 'bench', '--name', 'quiet', '--cwd', repoA, '--json', '--', '--auto', '0']));
  await srv.nerdr(['new', 'demo', '-d', '-t', 'bench', '--name', 'busy', '--cwd', repoB, '--json', '--', '--auto', '1', '--work', '1']);
  const st = JSON.parse(await srv.nerdr(['supervisor', 'status', '--json']));
  srv.supervisorPid = st.pid;
  srv.clientPid = st.clientPid;
  // the agent's edits: a line every 200 ms in B (another window, not nerdr's)
  srv.tmux(['new-window', '-d', '-t', 'bench:', '-c', repoB, '-n', 'edits', 'sh', '-c', 'i=0; while :; do i=$((i+1)); echo "edit $i" >> src/y.ts; echo "$i" > "out-$((i % 5)).txt"; sleep 0.2; done']);
  srv.tmux(['select-window', '-t', `bench:${quiet.window}`]);
  const pane = srv
    .tmux(['split-window', '-h', '-l', '40%', '-t', quiet.pane, '-P', '-F', '#{pane_id}', process.execPath, NERDR_BIN, '-L', srv.name, 'review'])
    .trim();
  const pid = Number(srv.tmux(['display', '-p', '-t', pane, '#{pane_pid}']).trim());
  srv.extraPids.add(pid);
  await sleep(WARMUP * 1000);
  // idle means after its start: until a 5 s spell without a CPU tick (at most 60 s more)
  let settleS = WARMUP;
  let last = cpuWithChildren(pid);
  while (settleS < WARMUP + 60) {
    await sleep(5000);
    settleS += 5;
    const now = cpuWithChildren(pid);
    if (now === last) break;
    last = now;
  }
  const screen = srv.tmux(['capture-pane', '-p', '-t', pane]);
  const following = screen.includes('quiet · demo') && screen.includes('a.txt');
  const sup0 = cpuSeconds(srv.supervisorPid);
  const parts0 = cpuParts(pid);
  const cpu0 = cpuWithChildren(pid);
  const t0 = performance.now();
  // where in the minute the CPU went: one sample every 10 s
  const buckets = [];
  let prev = cpu0;
  for (let left = SECONDS; left > 0; left -= 10) {
    await sleep(Math.min(10, left) * 1000);
    const now = cpuWithChildren(pid);
    buckets.push(round(now - prev, 2));
    prev = now;
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuWithChildren(pid) - cpu0;
  const parts = cpuParts(pid);
  const sup = cpuSeconds(srv.supervisorPid) - sup0;
  const edits = Number(git(repoB, 'diff', '--numstat', '--', 'src/y.ts').split('\t')[0]) || 0;
  const pct = (cpu / wall) * 100;
  srv.stopSync();
  const r = {
    seconds: round(wall, 1),
    settledAfterSeconds: settleS,
    panelFollowsQuietWindow: following,
    panelCpuSeconds: round(cpu, 3),
    panelCpuPct: round(pct, 3),
    panelSelfCpuSeconds: round(parts.self - parts0.self, 3),
    panelChildrenCpuSeconds: round(parts.children - parts0.children, 3),
    panelCpuPer10s: buckets,
    supervisorCpuPct: round((sup / wall) * 100, 3),
    linesEditedInBusyRepo: edits,
    targetCpuPct: TARGET_CPU_PCT,
    met: following && pct <= TARGET_CPU_PCT,
  };
  line('panel follows the quiet window', following ? 'yes' : `NO:\n${screen}`);
  line('panel quiet after its start', `${settleS} s`);
  line(`panel CPU over ${r.seconds} s (other window busy)`, `${r.panelCpuSeconds} s = ${r.panelCpuPct} % of a core (target ≤ ${TARGET_CPU_PCT} %)`);
  line('  of it the panel itself / its git runs', `${r.panelSelfCpuSeconds} s / ${r.panelChildrenCpuSeconds} s; per 10 s: ${buckets.join(' ')}`);
  line('supervisor CPU meanwhile', `${r.supervisorCpuPct} %`);
  line('lines the busy window wrote meanwhile', String(edits));
  return r;
}

async function big() {
  const srv = new BenchServer('review-big');
  const repo = path.join(srv.workDir, 'big-repo');
  const files = {};
  const perDir = Math.max(1, Math.ceil(FILES / 500));
  for (let i = 0; i < FILES; i++) files[`d${String(Math.floor(i / perDir)).padStart(3, '0')}/f${i}.txt`] = `file ${i}\nline two\n`;
  const tMake = performance.now();
  makeRepo(repo, files);
  const makeS = (performance.now() - tMake) / 1000;
  // a repository someone has used: files written in the second the index was written are
  // "racily clean" and re-read by every status until git rewrites the index after that second
  await sleep(1100);
  git(repo, 'update-index', '-q', '--refresh');
  for (let i = 0; i < 10; i++) appendFileSync(path.join(repo, `d${String(i * 7).padStart(3, '0')}/f${i * 7 * perDir}.txt`), 'changed\n');
  for (let i = 0; i < 5; i++) writeFileSync(path.join(repo, `new-${i}.txt`), 'new\n');
  const tracked = Number(spawnSync('sh', ['-c', `git -C '${repo}' ls-files | wc -l`], { encoding: 'utf8' }).stdout.trim());

  const { gatherReview } = await load('review/data.js');
  const { ReviewController, folderTarget } = await load('review/controller.js');
  const dataDir = path.join(srv.workDir, 'data');
  const target = folderTarget(repo);
  await gatherReview(target, dataDir); // warm the cache
  const gathers = [];
  let last;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    last = await gatherReview(target, dataDir);
    gathers.push(performance.now() - t);
  }

  // the panel's path: watcher → debounce → gather → show
  let resolveShown = null;
  let wanted = null;
  const rss0 = process.memoryUsage().rss;
  const c = new ReviewController({
    dataDir,
    session: null,
    selfPane: null,
    pin: { kind: 'folder', folder: repo },
    show: (d) => {
      if (resolveShown && d.files.some((x) => x.path === wanted)) resolveShown();
    },
    say: () => undefined,
  });
  const tReady = performance.now();
  while (!(await c.watching())) await sleep(20);
  const readyMs = performance.now() - tReady;
  const watcherRss = process.memoryUsage().rss - rss0;
  const latencies = [];
  for (let i = 0; i < RUNS; i++) {
    wanted = `seen-${i}.txt`;
    const shown = new Promise((r) => (resolveShown = r));
    const t = performance.now();
    writeFileSync(path.join(repo, wanted), 'x\n');
    await shown;
    latencies.push(performance.now() - t);
    resolveShown = null;
    await sleep(300);
  }
  await c.dispose();

  const once = [];
  for (let i = 0; i < Math.min(RUNS, 5); i++) {
    const t = performance.now();
    const out = spawnSync(process.execPath, [NERDR_BIN, 'review', '--once', '--json', repo], { encoding: 'utf8', env: srv.env, maxBuffer: 64 << 20 });
    once.push(performance.now() - t);
    if (out.status !== 0) throw new Error(out.stderr);
  }
  // a git run of the controller's last refresh may still be going: rm retries
  rmSync(repo, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  srv.stopSync();
  const r = {
    trackedFiles: tracked,
    makeRepoSeconds: round(makeS, 1),
    changedShown: last.files.length,
    gatherMs: summary(gathers),
    watcherReadyMs: round(readyMs, 0),
    watcherRssMB: round(watcherRss / 1048576, 1),
    fileWrittenToShownMs: summary(latencies),
    onceJsonWallMs: summary(once),
  };
  line(`repository`, `${tracked} tracked files (${r.makeRepoSeconds} s to make), ${r.changedShown} changes listed`);
  line('gatherReview (each refresh), median / p90', `${r.gatherMs.median} / ${r.gatherMs.p90} ms`);
  line("watcher's first scan, RSS it added", `${r.watcherReadyMs} ms, ${r.watcherRssMB} MB`);
  line('file written → panel data, median / p90', `${r.fileWrittenToShownMs.median} / ${r.fileWrittenToShownMs.p90} ms (200 ms of it debounce)`);
  line('nerdr review --once --json wall, median', `${r.onceJsonWallMs.median} ms`);
  return r;
}

const out = { loadavgBefore: os.loadavg().map((x) => round(x, 2)) };
if (!ONLY || ONLY === 'big') out.big = await big();
if (!ONLY || ONLY === 'idle') out.idle = await idle();
out.loadavgAfter = os.loadavg().map((x) => round(x, 2));
line('load average before / after', `${out.loadavgBefore.join(' ')} / ${out.loadavgAfter.join(' ')} (${os.cpus().length} CPUs)`);
printJson('review', out);
process.exit(0);
