#!/usr/bin/env node
// A stand-in for a real agent CLI in live tests: it draws one captured screen of the real agent
// (a file of test/fixtures/real/screens, the .ansi.txt flavour with colours) and stays there,
// never exiting by itself (SIGTERM/SIGHUP/Ctrl-C end it). Put it on PATH under the agent's
// name (a symlink `claude` → this file): nerdr identifies `node …/claude` as claude.
//
//   FAKE_AGENT_SCREEN=/path/to/screen.ansi.txt   the screen to draw (required)
//   FAKE_AGENT_CONTROL=/path/to/file             optional: when this file changes, the screen
//                                                named in it (a path) is drawn instead
//   FAKE_AGENT_ARGV_LOG=/path/to/file            optional: the argv it was started with, as JSON
//   FAKE_AGENT_INPUT_LOG=/path/to/file           optional: every byte it reads is appended there
//   FAKE_AGENT_STATUS_CONTROL=/path/to/file      optional: it keeps a status file as Claude Code
//                                                2.1.3xx does, <$CLAUDE_CONFIG_DIR or
//                                                ~/.claude>/sessions/<pid>.json with its pid
//                                                and start ticks, rewritten in place with the fields
//                                                of this file (JSON: status, waitingFor) on each change
//
// Input is read (raw mode) and ignored: the screen never changes on a key (so a message typed
// into it is never confirmed). Bracketed paste is switched on, as real agents do.
// `… app-server …` (what nerdr runs to ask codex about hook trust) exits at once: no answer.

import { appendFileSync, mkdirSync, readFileSync, unlinkSync, watchFile, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const screenFile = process.env.FAKE_AGENT_SCREEN;
if (!screenFile) {
  process.stderr.write('fake-agent: FAKE_AGENT_SCREEN is not set\n');
  process.exit(2);
}
if (process.env.FAKE_AGENT_ARGV_LOG) appendFileSync(process.env.FAKE_AGENT_ARGV_LOG, `${JSON.stringify(process.argv.slice(1))}\n`);

if (process.argv.slice(2).includes('app-server')) process.exit(1);

let current = screenFile;

function draw() {
  let text = '';
  try {
    text = readFileSync(current, 'utf8');
  } catch (err) {
    text = `fake-agent: cannot read ${current}: ${err.message}`;
  }
  const lines = text.replace(/\n$/, '').split('\n');
  const rows = process.stdout.rows || 40;
  let out = '\x1b[?25l\x1b[H\x1b[2J';
  lines.slice(0, rows).forEach((l, i) => {
    out += `\x1b[${i + 1};1H${l.replace(/\r$/, '')}\x1b[0m`;
  });
  process.stdout.write(out);
}

const control = process.env.FAKE_AGENT_CONTROL;
if (control) {
  watchFile(control, { interval: 100 }, () => {
    try {
      const next = readFileSync(control, 'utf8').trim();
      if (next) current = next;
    } catch {
      return;
    }
    draw();
  });
}

const statusControl = process.env.FAKE_AGENT_STATUS_CONTROL;
if (statusControl) {
  const dir = join(process.env.CLAUDE_CONFIG_DIR || join(process.env.HOME || '/nonexistent', '.claude'), 'sessions');
  mkdirSync(dir, { recursive: true });
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const procStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  const file = join(dir, `${process.pid}.json`);
  let last = '';
  const write = () => {
    let fields;
    try {
      const text = readFileSync(statusControl, 'utf8');
      if (text === last) return;
      fields = JSON.parse(text);
      last = text;
    } catch {
      return;
    }
    writeFileSync(file, JSON.stringify({ pid: process.pid, sessionId: 'fake', procStart, version: 'fake', ...fields, statusUpdatedAt: Date.now() }));
  };
  watchFile(statusControl, { interval: 50 }, write);
  write();
  process.on('exit', () => {
    try {
      unlinkSync(file);
    } catch {
      // gone already
    }
  });
}

if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdout.write('\x1b[?2004h');
process.stdin.on('data', (b) => {
  if (process.env.FAKE_AGENT_INPUT_LOG) appendFileSync(process.env.FAKE_AGENT_INPUT_LOG, b);
  if (b.includes(0x03)) process.exit(0);
});
process.stdout.on('resize', draw);
for (const sig of ['SIGTERM', 'SIGHUP']) process.on(sig, () => process.exit(0));
draw();
// stay alive: a real agent waits at its prompt
setInterval(() => undefined, 1 << 30);
