// `nerdr.info`: this supervisor process and its tmux connection (`nerdr supervisor status`, doctor).

import type { MethodHost } from './host.js';
import { method } from './method.js';

export const info = method('nerdr.info', (host: Pick<MethodHost, 'info'>) => {
  const i = host.info();
  return {
    pid: process.pid,
    ready: i.ready,
    client: i.client,
    clientPid: i.clientPid,
    tmuxVersion: i.tmuxVersion,
    serverPid: i.serverPid,
    agents: i.agents,
    uptimeMs: Math.round(process.uptime() * 1000),
    socket: i.socket,
  };
});
