// Helper for the latency benches: runs inside a watched tmux pane and draws whole screens on
// command. It connects to the bench's Unix socket; each line it receives names a screen file
// (an ANSI capture, e.g. a Claude fixture); it draws it from the top-left corner with one
// synchronous write to the tty, then answers `<line> <wall-clock ms of the last byte written>`.
//
//   node bench/screen-pane.js <control socket> <first screen file>

import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

const [ctl, first] = process.argv.slice(2);
const cache = new Map();

function screen(file) {
  let s = cache.get(file);
  if (s === undefined) {
    const lines = readFileSync(file, 'utf8').replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
    // no final line break: 40 lines on a 40-row pane must not scroll
    s = '\x1b[H\x1b[2J' + lines.map((l) => `${l}\x1b[0m`).join('\r\n');
    cache.set(file, s);
  }
  return s;
}

function draw(file) {
  // stdout on a tty is written synchronously: when write() returns the bytes are in the pty
  process.stdout.write(screen(file));
  return performance.timeOrigin + performance.now();
}

if (first) draw(first);
const sock = connect(ctl);
let buf = '';
sock.setEncoding('utf8');
sock.on('data', (d) => {
  buf += d;
  let nl;
  while ((nl = buf.indexOf('\n')) >= 0) {
    const file = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    const at = draw(file);
    sock.write(`${file} ${at}\n`);
  }
});
sock.on('close', () => process.exit(0));
sock.on('error', () => process.exit(0));
