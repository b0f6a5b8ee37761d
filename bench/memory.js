// Memory: supervisor RSS per watched 120x40 agent pane. The real supervisor process (started
// on demand, like any nerdr command starts it) is measured with no agent window, then with N
// (default 20) windows that keep a full, coloured, scrolling screen (a line every 50 ms on
// average, so the screen and the mirror's 100 lines of scrollback are full).
//
//   node bench/memory.js [--agents 20] [--fill 15] [--samples 20]
//
// RSS is read from /proc/<pid>/status (VmRSS) every 250 ms; the median of the samples is used
// (V8 collects garbage lazily, so single readings jump by a few MB).
// Figure: (RSS with N - RSS with 0) / N (target <= 3 MB per pane).

import { BenchServer, flags, line, median, num, printJson, round, rssBytes, sleep, verdict } from './lib.js';

const f = flags();
const N = num(f.agents, 20);
const FILL = num(f.fill, 15);
const SAMPLES = num(f.samples, 20);
const TARGET_MB = 3;

// 10 coloured lines of ~118 columns, then 0.5 s: about 20 lines/s, 2 forks/s per pane.
const SCREEN = `i=0; pad='lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna'; ` +
  `while :; do for j in 0 1 2 3 4 5 6 7 8 9; do i=$((i+1)); printf '\\033[3%dm%06d\\033[0m \\033[1m%s\\033[0m %s\\n' $((i%7+1)) $i "$pad" "$j"; done; sleep 0.5; done`;

async function sample(pid, n) {
  const xs = [];
  for (let i = 0; i < n; i++) {
    xs.push(rssBytes(pid));
    await sleep(250);
  }
  return xs;
}

const mb = (b) => round(b / 1048576, 2);

async function main() {
  const srv = new BenchServer('mem').start();
  let result;
  try {
    await srv.startSupervisor();
    await sleep(3000);
    const r0 = await sample(srv.supervisorPid, SAMPLES);
    const windows = [];
    for (let i = 0; i < N; i++) windows.push(await srv.newWindow({ agent: 'claude', name: `busy${i}`, argv: ['/bin/sh', '-c', SCREEN] }));
    await sleep(FILL * 1000);
    const rN = await sample(srv.supervisorPid, SAMPLES);
    const ls = JSON.parse(await srv.nerdr(['ls', '--json']).catch(() => '[]'));
    const m0 = median(r0);
    const mN = median(rN);
    const perPane = (mN - m0) / N;
    result = {
      agents: N,
      paneSize: '120x40',
      watched: Array.isArray(ls) ? ls.length : ls.agents?.length,
      rss0MB: mb(m0),
      rss0RangeMB: [mb(Math.min(...r0)), mb(Math.max(...r0))],
      rssNMB: mb(mN),
      rssNRangeMB: [mb(Math.min(...rN)), mb(Math.max(...rN))],
      perPaneMB: mb(perPane),
      perPaneMaxMB: mb((Math.max(...rN) - Math.min(...r0)) / N),
      targetMB: TARGET_MB,
      met: perPane / 1048576 <= TARGET_MB,
    };
  } finally {
    srv.stopSync();
  }
  process.stdout.write(`memory: supervisor RSS with 0 and ${N} watched 120x40 panes (full scrolling colour screens), median of ${SAMPLES} samples\n`);
  line('RSS, no agent window', `${result.rss0MB} MB (${result.rss0RangeMB.join('..')})`);
  line(`RSS, ${N} agent windows`, `${result.rssNMB} MB (${result.rssNRangeMB.join('..')})`);
  line('per pane', `${result.perPaneMB} MB (worst pairing ${result.perPaneMaxMB} MB; target <= ${TARGET_MB} MB: ${verdict(result.met)})`);
  printJson('memory', result);
}

await main();
