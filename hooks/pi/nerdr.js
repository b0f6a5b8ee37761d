// nerdr's pi extension: forwards pi's lifecycle to nerdr. `pi -e <this file>`, given by `nerdr new pi`.
// NERDR_INTEGRATION=pi NERDR_INTEGRATION_VERSION=1
//
// Active only in the pi nerdr started: that one has NERDR_PI_EXTENSION=1 in its environment, which
// this file removes at once (the answer is kept on globalThis, so a /reload or /new that loads the
// extension again still reports), so a pi the agent runs itself (its bash tool passes the rest of
// the environment on) reports nothing. Each event is written from pi's own process as one file in
// the supervisor's hook spool, <state>/spool/<server key>/ next to NERDR_SOCKET, exactly as
// nerdr's shell hook (hooks/nerdr-hook) writes it: a temporary dot-file renamed into place, no
// process started. Files are written one at a time with rising timestamps, so they are read in order.
// Every payload carries pi's session id (ctx.sessionManager), which `pi --session <id>` resumes.
import { renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const KEY = Symbol.for('nerdr.pi.extension');
const env = process.env;
if (globalThis[KEY] === undefined) {
  const secret = env.NERDR_TAB || '';
  const socket = env.NERDR_SOCKET || '';
  globalThis[KEY] = {
    active: env.NERDR_PI_EXTENSION === '1' && !!socket && !!secret && !/[\n\r]/.test(secret),
    secret,
    spool: socket ? path.join(path.dirname(socket), 'spool', path.basename(socket).replace(/^nerdr-/, '').replace(/\.sock$/, '')) : '',
    last: 0n,
    n: 0,
  };
}
delete env.NERDR_PI_EXTENSION;
const S = globalThis[KEY];
// one byte past nerdr's 1 MiB cap: the reader records a larger payload as dropped
const CAP = 1024 * 1024 + 1;

function send(type, payload) {
  try {
    if (!statSync(S.spool).isDirectory()) return;
    // wall-clock nanoseconds, rising even within one millisecond
    let t = BigInt(Date.now()) * 1000000n;
    if (t <= S.last) t = S.last + 1n;
    S.last = t;
    const body = Buffer.from(JSON.stringify(payload));
    const head = Buffer.from(`nerdr-spool 1\nsecret ${S.secret}\nagent pi\nevent ${type}\ntime ${t}\n\n`);
    const name = `${t}.${String(++S.n).padStart(10, '0')}-${process.pid}`;
    const tmp = path.join(S.spool, `.${name}`);
    writeFileSync(tmp, Buffer.concat([head, body.subarray(0, CAP)]), { mode: 0o600 });
    renameSync(tmp, path.join(S.spool, `${name}.hook`));
  } catch {}
}

function session(ctx) {
  try {
    const m = ctx && ctx.sessionManager;
    const id = m && typeof m.getSessionId === 'function' ? m.getSessionId() : undefined;
    const file = m && typeof m.getSessionFile === 'function' ? m.getSessionFile() : undefined;
    return { ...(typeof id === 'string' ? { sessionId: id } : {}), ...(typeof file === 'string' ? { sessionFile: file } : {}) };
  } catch {
    return {};
  }
}

export default function nerdr(pi) {
  if (!S.active) return;
  // the outcome of the run's last turn ("completed", "error", "aborted"), for agent_settled
  let outcome;
  // between agent_start and agent_settled: a dialog closed then lets the run go on
  let running = false;
  const on = (event, pick) =>
    pi.on(event, (e, ctx) => {
      try {
        const fields = pick ? pick(e || {}) : {};
        if (fields === null) return;
        send(event, { event, ...session(ctx), ...fields });
      } catch {}
    });
  on('session_start', (e) => ({ reason: e.reason }));
  // a run starts for a prompt ("user") or an extension's message ("custom")
  on('before_agent_start', (e) => ({ messageType: e.messageType }));
  on('agent_start', () => {
    outcome = undefined;
    running = true;
    return {};
  });
  on('tool_execution_start', (e) => ({ toolName: e.toolName }));
  on('turn_end', (e) => {
    outcome = e.outcome;
    return null;
  });
  on('session_compact', () => ({}));
  // pi will not go on by itself: the turn is over (aborted: Esc)
  on('agent_settled', (e) => {
    running = false;
    return { aborted: e.aborted === true, ...(outcome ? { outcome } : {}) };
  });
  // an extension's dialog (confirm, select, input …) waits for the user; `running`: inside a run
  on('ui_prompt_start', (e) => ({ kind: e.kind, title: typeof e.title === 'string' ? e.title.slice(0, 200) : undefined, running }));
  on('ui_prompt_end', (e) => ({ kind: e.kind, running }));
  on('session_shutdown', (e) => ({ reason: e.reason }));
}
