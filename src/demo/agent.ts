// A simulated coding agent for `nerdr demo` and the live tests: it draws screens like a real
// agent (a spinner with "esc to interrupt" while working, a "Do you want to proceed?" dialog
// that waits for a key, an idle prompt box) and goes through them turn by turn.
//
//   node dist/demo/agent.js [--auto SECONDS] [--work SECONDS] [--ask] [--title NAME]
//
// --auto N: start a new turn by itself after N s at the prompt (0: only when you type).
// --work N: how long each working phase lasts. --ask: every turn asks for permission.
// Keys: type and Enter to start a turn; in the dialog 1 = yes, 2/Esc = no, ↑/↓ move the
// selection and Enter chooses it; Esc while working interrupts; Ctrl-C quits.

const args = process.argv.slice(2);
function arg(name: string, dflt: number): number {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isFinite(v) ? v : dflt;
}
const AUTO_S = arg('--auto', 0);
const WORK_S = arg('--work', 4);
const ALWAYS_ASK = args.includes('--ask');
const TASKS = ['refactor the tmux parser', 'write tests for the mirror', 'fix the flaky build', 'update the docs', 'profile the hot path'];
const SPIN = ['✢', '✳', '✶', '✻', '✽', '✻', '✶', '✳'];

type Phase = 'idle' | 'working' | 'asking' | 'after';
let phase: Phase = 'idle';
/** The dialog's selected option: 0 yes, 1 no. */
let selected = 0;
let input = '';
let task = '';
let turn = 0;
let frame = 0;
let phaseStart = Date.now();
let timer: NodeJS.Timeout | null = null;
let autoTimer: NodeJS.Timeout | null = null;
const log: string[] = ['nerdr demo agent: a simulated coding agent. Type a task and press Enter.'];

const out = (s: string): boolean => process.stdout.write(s);
const cols = (): number => process.stdout.columns || 80;
const rows = (): number => process.stdout.rows || 24;
const rule = (): string => '─'.repeat(Math.max(10, cols() - 1));

function draw(): void {
  const body: string[] = [];
  for (const l of log.slice(-Math.max(1, rows() - 14))) body.push(l);
  body.push('');
  if (phase === 'working' || phase === 'after') {
    const secs = Math.floor((Date.now() - phaseStart) / 1000);
    body.push(`\x1b[33m${SPIN[frame % SPIN.length]} ${phase === 'after' ? 'Finishing' : 'Working'}… (${secs}s · esc to interrupt)\x1b[0m`);
    body.push('');
  }
  if (phase === 'asking') {
    body.push('╭' + '─'.repeat(58) + '╮');
    body.push('│ \x1b[1mBash command\x1b[0m' + ' '.repeat(45) + '│');
    body.push('│   rm -rf build/ && npm run build' + ' '.repeat(25) + '│');
    body.push('│' + ' '.repeat(58) + '│');
    body.push('│ Do you want to proceed?' + ' '.repeat(34) + '│');
    const yes = selected === 0 ? '\x1b[36m❯ 1. Yes\x1b[0m' : '  1. Yes';
    const no = selected === 1 ? '\x1b[36m❯ 2. No, and tell me what to do differently (esc)\x1b[0m' : '  2. No, and tell me what to do differently (esc)';
    body.push('│ ' + yes + ' '.repeat(49) + '│');
    body.push('│ ' + no + ' '.repeat(7) + '│');
    body.push('╰' + '─'.repeat(58) + '╯');
    body.push('Esc to cancel · Enter to confirm');
  } else {
    body.push(rule());
    body.push('❯ ' + input);
    body.push(rule());
    body.push(phase === 'idle' ? '  ? for shortcuts · demo agent' : '  demo agent · esc to interrupt');
  }
  let s = '\x1b[H\x1b[2J';
  body.forEach((l, i) => {
    s += `\x1b[${i + 1};1H${l}`;
  });
  out(s);
}

function setPhase(p: Phase): void {
  phase = p;
  selected = 0;
  phaseStart = Date.now();
  if (timer) clearTimeout(timer);
  timer = null;
  if (autoTimer) clearTimeout(autoTimer);
  autoTimer = null;
  out(`\x1b]0;${p === 'working' || p === 'after' ? '⠂ demo' : '✳ demo'}\x07`);
  if (p === 'idle' && AUTO_S > 0) autoTimer = setTimeout(() => startTurn(TASKS[turn % TASKS.length]!), AUTO_S * 1000);
  draw();
}

function tick(until: number, next: () => void): void {
  frame++;
  draw();
  if (Date.now() >= until) next();
  else timer = setTimeout(() => tick(until, next), 120);
}

function startTurn(text: string): void {
  task = text;
  turn++;
  log.push('', `\x1b[1m> ${task}\x1b[0m`);
  setPhase('working');
  const ask = ALWAYS_ASK || turn % 2 === 0;
  tick(Date.now() + WORK_S * 1000, () => (ask ? setPhase('asking') : finish()));
}

function finish(): void {
  setPhase('after');
  tick(Date.now() + 1000, () => {
    log.push(`● Done: ${task}.`);
    setPhase('idle');
  });
}

function onKey(data: Buffer): void {
  const s = data.toString('utf8');
  if (s === '\x03') {
    out('\x1b[H\x1b[2J');
    process.exit(0);
  }
  if (phase === 'asking') {
    if (s === '\x1b[A' || s === '\x1b[B' || s === '\x1bOA' || s === '\x1bOB') {
      selected = s.endsWith('A') ? 0 : 1;
      draw();
      return;
    }
    if (s === '1' || (s === '\r' && selected === 0) || s === 'y') {
      log.push('● Bash(rm -rf build/ && npm run build) … ok');
      setPhase('working');
      tick(Date.now() + (WORK_S * 1000) / 2, finish);
    } else if (s === '2' || s === '\x1b' || (s === '\r' && selected === 1) || s === 'n') {
      log.push('● Permission denied. Waiting for your instructions.');
      setPhase('idle');
    }
    return;
  }
  if (phase === 'working' || phase === 'after') {
    if (s === '\x1b') {
      log.push('⎿ Interrupted by user');
      setPhase('idle');
    }
    return;
  }
  // idle: a prompt (a bracketed paste arrives wrapped in ESC[200~ … ESC[201~)
  const text = s.replace(/\x1b\[20[01]~/g, '');
  for (const ch of text) {
    if (ch === '\r' || ch === '\n') {
      if (input.trim()) {
        const t = input.trim();
        input = '';
        startTurn(t);
        return;
      }
    } else if (ch === '\x7f') input = input.slice(0, -1);
    else if (ch >= ' ') input += ch;
  }
  draw();
}

if (process.stdin.isTTY) process.stdin.setRawMode(true);
out('\x1b[?2004h'); // bracketed paste, like real agents
process.stdin.on('data', onKey);
process.stdout.on('resize', draw);
setPhase('idle');
