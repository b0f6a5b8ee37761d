// Hooks (issue "Integrations"): two figures, with a real supervisor and a real watched window.
//
//   node bench/hook.js [--runs 30] [--latency-runs 20]
//
// The window has agent label "claude" and shows the real Claude idle screen
// (06-idle-after-bash.ansi.txt) from `cat`. Its NERDR_SOCKET and NERDR_TAB are read from
// /proc/<pane_pid>/environ (new-window -e put them only in the pane's environment).
// Payloads are the recorded Claude hook events of test/fixtures/real/hooks/claude-hooks.jsonl.
//
// 1. Wall time of `node bin/nerdr.js hook claude` (stdin: a PreToolUse payload) over the wall
//    time of `node -e 0` (same stdin), both spawned synchronously, interleaved, --runs each;
//    ratio of the medians. Target <= 1.3.
// 2. Hook to light: spawn `nerdr hook claude` with a PermissionRequest (-> blocked) or a
//    UserPromptSubmit (-> working), alternately, and poll @nerdr_state with a second control
//    client until it shows the expected state. Reported from the spawn (what the agent waits
//    for is only the hook's exit, but the light is what the user sees) and from the hook's exit
//    (the supervisor had the event by then). 1.2 s between runs, so the lights writer's 250 ms
//    minimum interval and the arbiter's 2 s / 3 s screen checks never interfere. Target <= 50 ms.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BenchServer, FIXTURES, NERDR_BIN, StatePoller, flags, line, median, nowMs, num, printJson, round, sleep, summary, verdict } from './lib.js';

const f = flags();
const RUNS = num(f.runs, 30);
const LAT_RUNS = num(f['latency-runs'], 20);
const TARGET_RATIO = 1.3;
const TARGET_LATENCY_MS = 50;

function payloads() {
  const events = readFileSync(path.join(FIXTURES, 'hooks', 'claude-hooks.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.hook_event_name);
  const pick = (name) => {
    const e = events.find((x) => x.hook_event_name === name && !x.agent_id);
    if (!e) throw new Error(`no ${name} in the fixture`);
    return JSON.stringify(e);
  };
  return { pre: pick('PreToolUse'), permission: pick('PermissionRequest'), prompt: pick('UserPromptSubmit') };
}

function timedSync(args, env, input) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, input, stdio: ['pipe', 'ignore', 'ignore'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return ms;
}

function hookAsync(env, input) {
  const child = spawn(process.execPath, [NERDR_BIN, 'hook', 'claude'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.end(input);
  return new Promise((resolve) => child.on('exit', () => resolve(nowMs())));
}

async function main() {
  const p = payloads();
  const srv = new BenchServer('hook').start();
  let poller = null;
  let result;
  try {
    await srv.startSupervisor();
    const idle = path.join(FIXTURES, 'screens', 'claude', '06-idle-after-bash.ansi.txt');
    const win = await srv.newWindow({ agent: 'claude', name: 'claude-hooks', argv: ['/bin/sh', '-c', `clear; cat '${idle}'; exec sleep 1000000`] });
    const paneEnv = srv.paneEnv(win.panePid);
    if (!paneEnv.NERDR_SOCKET || !paneEnv.NERDR_TAB) throw new Error('the pane has no NERDR_SOCKET / NERDR_TAB');
    const env = { ...process.env, NERDR_SOCKET: paneEnv.NERDR_SOCKET, NERDR_TAB: paneEnv.NERDR_TAB };
    delete env.NERDR_HOOK_DEBUG;
    poller = await StatePoller.open(srv);
    await poller.waitFor(win.window, (s) => s !== 'unknown' && s !== '', { timeoutMs: 15_000, intervalMs: 50 });

    // ---- 1. wall time ------------------------------------------------------------------
    for (let i = 0; i < 3; i++) {
      timedSync(['-e', '0'], env, p.pre);
      timedSync([NERDR_BIN, 'hook', 'claude'], env, p.pre);
    }
    const hookMs = [];
    const nodeMs = [];
    for (let i = 0; i < RUNS; i++) {
      nodeMs.push(timedSync(['-e', '0'], env, p.pre));
      hookMs.push(timedSync([NERDR_BIN, 'hook', 'claude'], env, p.pre));
    }
    // a hook that really reached the supervisor: the PreToolUse made the window "working"
    const afterWall = await poller.get(win.window);
    await sleep(1500);

    // ---- 2. hook -> light --------------------------------------------------------------
    const fromSpawn = [];
    const fromExit = [];
    const kinds = [];
    for (let i = 0; i < LAT_RUNS; i++) {
      let current = await poller.get(win.window);
      // alternate; start with whichever state the window is not in
      const want = current === 'blocked' ? 'working' : 'blocked';
      const input = want === 'blocked' ? p.permission : p.prompt;
      const t0 = nowMs();
      const exited = hookAsync(env, input);
      const { at } = await poller.waitFor(win.window, (s) => s === want, { timeoutMs: 5000, intervalMs: 1 });
      const tExit = await exited;
      fromSpawn.push(at - t0);
      fromExit.push(at - tExit);
      kinds.push(want);
      current = want;
      await sleep(1200);
    }
    const ratio = median(hookMs) / median(nodeMs);
    result = {
      wall: { runs: RUNS, hookMs: summary(hookMs), nodeMs: summary(nodeMs), ratio: round(ratio), stateAfter: afterWall },
      latency: { runs: LAT_RUNS, fromSpawnMs: summary(fromSpawn), fromExitMs: summary(fromExit), spawnMs: fromSpawn.map((x) => round(x, 1)), kinds },
      targets: { ratio: TARGET_RATIO, latencyMs: TARGET_LATENCY_MS },
      met: ratio <= TARGET_RATIO && median(fromSpawn) <= TARGET_LATENCY_MS,
    };
  } finally {
    await poller?.close().catch(() => undefined);
    srv.stopSync();
  }
  const w = result.wall;
  const l = result.latency;
  process.stdout.write(`hook: \`nerdr hook claude\` against a real supervisor socket, ${RUNS} + ${LAT_RUNS} runs\n`);
  line('wall time, nerdr hook claude (median)', `${w.hookMs.median} ms (min ${w.hookMs.min}, p90 ${w.hookMs.p90})`);
  line('wall time, node -e 0 (median)', `${w.nodeMs.median} ms (min ${w.nodeMs.min}, p90 ${w.nodeMs.p90})`);
  line('ratio of medians', `${w.ratio} (target <= ${TARGET_RATIO}: ${verdict(w.ratio <= TARGET_RATIO)}); state after: ${w.stateAfter}`);
  line('hook spawned -> light set (median)', `${l.fromSpawnMs.median} ms (min ${l.fromSpawnMs.min}, p90 ${l.fromSpawnMs.p90}, max ${l.fromSpawnMs.max}) (target <= ${TARGET_LATENCY_MS} ms: ${verdict(l.fromSpawnMs.median <= TARGET_LATENCY_MS)})`);
  line('hook exited -> light set (median)', `${l.fromExitMs.median} ms (min ${l.fromExitMs.min}, max ${l.fromExitMs.max})`);
  line('  all runs from spawn (ms)', l.spawnMs.join(' '));
  printJson('hook', result);
}

await main();
