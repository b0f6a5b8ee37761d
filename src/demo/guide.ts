// The demo's first window: what each light means, the demo agents right now, what to try (with
// commands that work as printed), how to leave and how to end it. Redrawn every 2 s from the
// supervisor's agent list.
//
//   node dist/demo/guide.js SOCKET_FILE NERDR_COMMAND END_COMMAND

import { request } from '../supervisor/socket/client.js';
import { DEFAULT_LOOKS, type Kind } from '../looks.js';

const [socketFile = '', nerdr = 'nerdr', endCommand = ''] = process.argv.slice(2);

interface Row {
  name: string;
  state: string;
  windowIndex: number | null;
}

const BASIC = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

/** A light's tmux style (`red,bold`, `colour245`) as an SGR, as the status bar draws it. */
function sgr(style: string): string {
  const codes: string[] = [];
  for (const part of style.split(',').map((p) => p.trim())) {
    const n = /^colou?r(\d+)$/.exec(part);
    if (BASIC.includes(part)) codes.push(String(30 + BASIC.indexOf(part)));
    else if (n) codes.push(`38;5;${n[1]}`);
    else if (part === 'bold') codes.push('1');
    else if (part === 'dim') codes.push('2');
  }
  return codes.join(';') || '0';
}
const MEANS: Record<string, string> = {
  working: 'working',
  blocked: 'blocked: a question or a permission prompt waits for you',
  done: 'done: finished, and you have not looked yet',
  idle: 'idle: waiting for a prompt',
};

const light = (state: string): string => {
  const look = DEFAULT_LOOKS[state as Kind] ?? DEFAULT_LOOKS.unknown;
  return `\x1b[${sgr(look.color)}m${look.glyph}\x1b[0m`;
};

function render(rows: Row[] | null): string {
  const demo = (rows ?? []).filter((r) => r.name.startsWith('demo-')).sort((a, b) => (a.windowIndex ?? 0) - (b.windowIndex ?? 0));
  const out: string[] = [];
  out.push('\x1b[1mnerdr demo\x1b[0m: three simulated agents. Their lights are in the status bar, in front of each window.', '');
  out.push('What a light means:');
  for (const s of ['working', 'blocked', 'done', 'idle']) out.push(`  ${light(s)}  ${MEANS[s]}`);
  out.push('', 'Right now:');
  if (rows === null) out.push('  (the supervisor does not answer yet)');
  for (const r of demo) {
    const hint = r.state === 'blocked' ? `   ← go there (prefix ${r.windowIndex}) and press 1 to answer` : '';
    out.push(`  ${light(r.state)}  window ${r.windowIndex ?? '?'}  ${r.name.padEnd(10)} ${r.state}${hint}`);
  }
  out.push('', 'Try, in a new window (prefix c):');
  out.push(`  ${nerdr} ls                       every agent and its state`);
  out.push(`  ${nerdr} explain demo-asks        why it has that state`);
  out.push(`  ${nerdr} send demo-fast 'go on'   a message, typed in when it is idle`);
  out.push(`  ${nerdr} next                     jump to the agent that needs you`);
  out.push(`  ${nerdr} dash                     a dashboard of all of them`);
  out.push('', 'Go to a window: prefix and its number (the prefix is Ctrl-b unless you changed it).');
  out.push('Leave: prefix d. Everything keeps running; run the demo again to come back.');
  if (endCommand) out.push(`End it: ${endCommand}`);
  return out.join('\r\n');
}

async function draw(): Promise<void> {
  let rows: Row[] | null = null;
  try {
    rows = ((await request(socketFile, 'nerdr.ls', {}, { timeoutMs: 2000 })) as { agents: Row[] }).agents;
  } catch {
    rows = null;
  }
  process.stdout.write(`\x1b[H\x1b[2J${render(rows)}\r\n`);
}

await draw();
setInterval(() => void draw(), 2000);
