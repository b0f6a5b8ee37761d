// nerdr's opencode plugin: forwards opencode's lifecycle to nerdr.
// NERDR_INTEGRATION=opencode NERDR_INTEGRATION_VERSION=1
// Managed by nerdr (nerdr integrations install/uninstall opencode). Remove the line above to keep edits.
//
// Active only in the opencode nerdr started: that one has NERDR_OPENCODE_PLUGIN=1 in its environment,
// which this file removes at once, so an opencode the agent runs itself (it inherits the rest of the
// environment) reports nothing. Each event is handed to `"$NERDR_BIN" hook opencode <type>` with the
// event JSON on stdin, one at a time so they arrive in order. Child sessions (subagents) are marked
// with properties.info.parentID so nerdr keeps only their permission prompts and questions.
import { spawn } from 'node:child_process';

const env = process.env;
const BIN = env.NERDR_BIN;
const ACTIVE = env.NERDR_OPENCODE_PLUGIN === '1' && !!BIN && !!env.NERDR_SOCKET && !!(env.NERDR_TAB || env.HERDR_PANE_ID);
delete env.NERDR_OPENCODE_PLUGIN;

const FORWARD = new Set([
  'session.created', 'session.updated', 'session.status', 'session.idle', 'session.error', 'session.deleted',
  'permission.asked', 'permission.updated', 'permission.v2.asked', 'permission.replied',
  'question.asked', 'question.replied', 'question.rejected',
]);

const parents = new Map(); // child session id -> parent session id
let chain = Promise.resolve();

function run(type, payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(BIN, ['hook', 'opencode', type], { stdio: ['pipe', 'ignore', 'ignore'] });
    } catch {
      resolve();
      return;
    }
    const timer = setTimeout(() => { try { child.kill(); } catch {} resolve(); }, 2000);
    child.on('error', () => { clearTimeout(timer); resolve(); });
    child.on('close', () => { clearTimeout(timer); resolve(); });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

function send(type, payload) {
  chain = chain.then(() => run(type, payload)).catch(() => {});
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
