#!/usr/bin/env node
// Test output generator for test/live/mirror.test.ts: random coloured text with CJK, emoji,
// UTF-8 characters and escape sequences deliberately split across pty writes, cursor
// moves, and an alternate-screen phase with a scroll region. Markers tell the test where
// it is. After "DONE" it stays alive and silent until killed.
//
// Usage: node mirror-producer.mjs <mode> <seed>
//   mode "stream": main → ALT-PHASE (alt screen, region 3..30) → back to main → DONE
//   mode "static-alt": main lines, then the alternate screen with a region, then READY; idles.

const mode = process.argv[2] ?? 'stream';
let state = Number(process.argv[3] ?? 1) >>> 0 || 1;
const rnd = (n) => {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state % n;
};
const pick = (a) => a[rnd(a.length)];
const out = (s) => process.stdout.write(typeof s === 'string' ? Buffer.from(s, 'utf8') : s);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const WORDS = ['alpha', 'beta', 'gamma', '中文', '漢字テスト', '한국어', '🎉', '✅', '❯', 'é', 'naïve', 'x', '⠋', '✳', '━━━', 'Ω'];
const SGR = ['\x1b[31m', '\x1b[1;32m', '\x1b[94m', '\x1b[38;5;208m', '\x1b[38;2;10;200;30m', '\x1b[7m', '\x1b[4;45m', '\x1b[0m', '\x1b[2m', ''];

function line(maxWords) {
  let s = '';
  const n = 1 + rnd(maxWords);
  for (let i = 0; i < n; i++) s += pick(SGR) + pick(WORDS) + ' ';
  return s + '\x1b[0m';
}

/** Write `s`, cut inside a multi-byte character or an escape sequence when there is one. */
async function splitWrite(s) {
  const buf = Buffer.from(s, 'utf8');
  const cuts = [];
  for (let i = 1; i < buf.length; i++) {
    const b = buf[i];
    if ((b & 0xc0) === 0x80 || (buf[i - 1] === 0x1b)) cuts.push(i);
  }
  if (cuts.length === 0 || rnd(2) === 0) return out(buf);
  const at = pick(cuts);
  out(buf.subarray(0, at));
  await sleep(1 + rnd(4)); // a separate pty read, so usually a separate %output line
  out(buf.subarray(at));
}

async function mainPhase(ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const op = rnd(10);
    if (op < 6) await splitWrite(line(12) + '\r\n');
    else if (op === 6) await splitWrite(`\x1b7\x1b[${1 + rnd(40)};${1 + rnd(100)}H${line(3)}\x1b8`);
    else if (op === 7) await splitWrite(`${line(4)}\r${pick(SGR)}over\x1b[K\r\n`);
    else if (op === 8) await splitWrite('w'.repeat(100 + rnd(60)) + pick(WORDS) + '\r\n'); // auto-wrap
    else await splitWrite(`\x1b[${1 + rnd(40)};${1 + rnd(119)}H${pick(WORDS)}\x1b[40;1H\r\n`);
    if (rnd(4) === 0) await sleep(rnd(3));
  }
}

async function altPhase(ms) {
  out('\x1b[?1049h\x1b[H\x1b[2J\x1b[1;1HALT-PHASE top\x1b[40;1Hstatus line\x1b[3;30r\x1b[30;1H');
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (rnd(5) === 0) await splitWrite(`\x1b[${3 + rnd(28)};${1 + rnd(110)}H${line(2)}\x1b[30;1H`);
    else await splitWrite(line(10) + '\r\n');
    if (rnd(4) === 0) await sleep(rnd(3));
  }
}

async function main() {
  if (mode === 'stream') {
    await mainPhase(1200);
    out('MAIN-END\r\n');
    await altPhase(2500);
    out('\x1b[r\x1b[?1049l');
    for (let i = 0; i < 8; i++) await splitWrite(line(8) + '\r\n');
    out('\x1b[1;31mDONE\x1b[0m 完了 🎉\r\n');
  } else {
    for (let i = 0; i < 50; i++) await splitWrite(line(10) + '\r\n');
    out('main-last');
    out('\x1b[?1049h\x1b[H\x1b[2J\x1b[1;1HREADY\x1b[40;1H\x1b[44mstatus 中文\x1b[0m');
    out('\x1b[3;30r\x1b[10;5H');
    for (let i = 0; i < 5; i++) out(line(6) + '\r\n');
    // Ends inside an escape sequence: tmux holds "ESC [ 3" in its parser (capture-pane -P).
    out('\x1b[?25l\x1b[12;7H\x1b[3');
    process.on('SIGUSR1', () => out('2mG'));
    process.on('SIGUSR2', () => out('\x1b[r\x1b[?1049l'));
  }
  setInterval(() => {}, 1 << 30);
}

main();
