// nerdr's opencode plugin: forwards opencode's lifecycle to nerdr (Kilo Code, an opencode fork, loads it too).
// NERDR_INTEGRATION=opencode NERDR_INTEGRATION_VERSION=3
// Managed by nerdr (nerdr integrations install/uninstall opencode). Remove the line above to keep edits.
//
// Active only in the opencode nerdr started: that one has NERDR_OPENCODE_PLUGIN=1 in its environment,
// which this file removes at once, so an opencode the agent runs itself (it inherits the rest of the
// environment) reports nothing. Each event is written from opencode's own process as one file in the
// supervisor's hook spool, <state>/spool/<server key>/ next to NERDR_SOCKET (<state>/nerdr-<key>.sock),
// exactly as nerdr's shell hook (hooks/nerdr-hook) writes it: a temporary dot-file renamed into
// place, no process started. Files are written one at a time with rising timestamps, so they are
// read in order. Child sessions (subagents) are marked with properties.info.parentID so nerdr keeps
// only their permission prompts and questions. NERDR_PLUGIN_AGENT=kilo (removed too) names the agent
// that loaded it; opencode by default.
import { renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const env = process.env;
const SECRET = env.NERDR_TAB || env.HERDR_PANE_ID || '';
const SOCKET = env.NERDR_SOCKET || '';
const ACTIVE = env.NERDR_OPENCODE_PLUGIN === '1' && !!SOCKET && !!SECRET && !/[\n\r]/.test(SECRET);
const AGENT = env.NERDR_PLUGIN_AGENT === 'kilo' ? 'kilo' : 'opencode';
delete env.NERDR_OPENCODE_PLUGIN;
delete env.NERDR_PLUGIN_AGENT;
const SPOOL = SOCKET ? path.join(path.dirname(SOCKET), 'spool', path.basename(SOCKET).replace(/^nerdr-/, '').replace(/\.sock$/, '')) : '';
// one byte past nerdr's 1 MiB cap: the reader records a larger payload as dropped
const CAP = 1024 * 1024 + 1;

const FORWARD = new Set([
  'session.created', 'session.updated', 'session.status', 'session.idle', 'session.error', 'session.deleted',
  'permission.asked', 'permission.updated', 'permission.v2.asked', 'permission.replied',
  'question.asked', 'question.replied', 'question.rejected',
]);

const parents = new Map(); // child session id -> parent session id
let last = 0n;
let n = 0;

function send(type, payload) {
  try {
    if (!statSync(SPOOL).isDirectory()) return;
    // wall-clock nanoseconds, rising even within one millisecond
    let t = BigInt(Date.now()) * 1000000n;
    if (t <= last) t = last + 1n;
    last = t;
    const body = Buffer.from(JSON.stringify(payload));
    const head = Buffer.from(`nerdr-spool 1\nsecret ${SECRET}\nagent ${AGENT}\nevent ${type}\ntime ${t}\n\n`);
    const name = `${t}.${String(++n).padStart(10, '0')}-${process.pid}`;
    const tmp = path.join(SPOOL, `.${name}`);
    writeFileSync(tmp, Buffer.concat([head, body.subarray(0, CAP)]), { mode: 0o600 });
    renameSync(tmp, path.join(SPOOL, `${name}.hook`));
  } catch {}
}

function sessionOf(props) {
  if (!props || typeof props !== 'object') return undefined;
  if (typeof props.sessionID === 'string') return props.sessionID;
  if (props.info && typeof props.info.id === 'string') return props.info.id;
  return undefined;
}

function markChild(props) {
  const id = sessionOf(props);
  const parent = id !== undefined ? parents.get(id) : undefined;
  if (parent === undefined) return props;
  const info = props.info && typeof props.info === 'object' ? props.info : {};
  return info.parentID ? props : { ...props, info: { ...info, parentID: parent } };
}

export const NerdrPlugin = async () => {
  if (!ACTIVE) return {};
  return {
    event: async ({ event }) => {
      try {
        if (!event || typeof event.type !== 'string' || !FORWARD.has(event.type)) return;
        const props = event.properties && typeof event.properties === 'object' ? event.properties : {};
        const info = props.info;
        if (info && typeof info.id === 'string' && typeof info.parentID === 'string') parents.set(info.id, info.parentID);
        if (event.type === 'session.updated') return; // only used to learn child sessions
        send(event.type, { ...event, properties: markChild(props) });
      } catch {}
    },
    'chat.message': async (input) => {
      try {
        send('chat.message', { type: 'chat.message', properties: markChild({ sessionID: input && input.sessionID }) });
      } catch {}
    },
    'tool.execute.before': async (input) => {
      try {
        send('tool.execute.before', { type: 'tool.execute.before', properties: markChild({ sessionID: input && input.sessionID, tool: input && input.tool }) });
      } catch {}
    },
  };
};
