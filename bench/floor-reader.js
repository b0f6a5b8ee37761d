// A yardstick for bench/scale.js: the least a Node program pays to read the lines the supervisor
// reads. It attaches to a session as a control client (read-only, ignoring its size, so it
// changes nothing there), splits tmux's stream into lines and counts the %output ones, nothing
// more; after --settle seconds it measures its own CPU over --seconds and prints
// `FLOOR_JSON {"outputs":…,"cpuMs":…,"msPerOutput":…}`.
//
//   node bench/floor-reader.js --socket PATH --session NAME [--seconds 20] [--settle 2]

import { spawn } from 'node:child_process';
import { flags, num } from './lib.js';

const f = flags();
const SECONDS = num(f.seconds, 20);
const SETTLE = num(f.settle, 2);
const tmux = spawn('tmux', ['-S', String(f.socket), '-C', 'attach-session', '-f', 'ignore-size,read-only', '-t', `=${f.session}`], { stdio: ['pipe', 'pipe', 'inherit'] });
let outputs = 0;
let rest = '';
tmux.stdout.on('data', (d) => {
  const lines = (rest + d.toString('latin1')).split('\n');
  rest = lines.pop();
  for (const l of lines) if (l.startsWith('%output ') || l.startsWith('%extended-output ')) outputs++;
});
const end = (code) => {
  tmux.stdin.end(); // a control client leaves when its input ends
  tmux.kill();
  process.exit(code);
};
tmux.on('exit', (code) => {
  process.stderr.write(`floor-reader: tmux -C left (${code})\n`);
  process.exit(1);
});
setTimeout(() => {
  const cpu0 = process.cpuUsage();
  const n0 = outputs;
  setTimeout(() => {
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const n = outputs - n0;
    process.stdout.write(`FLOOR_JSON ${JSON.stringify({ outputs: n, cpuMs, msPerOutput: n ? cpuMs / n : null, seconds: SECONDS })}\n`);
    tmux.removeAllListeners('exit');
    end(0);
  }, SECONDS * 1000);
}, SETTLE * 1000);
