// The supervisor's own socket methods, one file each; what they take is src/protocol/params.ts.
// The fleet's two (fleet.ts, fleet-reload.ts) are served by src/supervisor/main.ts followFleet.

import type { MethodHost } from './host.js';
import type { Method } from './method.js';
import { answer } from './answer.js';
import { cancel } from './cancel.js';
import { edit } from './edit.js';
import { explain } from './explain.js';
import { inbox } from './inbox.js';
import { snooze } from './snooze.js';
import { events } from './events.js';
import { info } from './info.js';
import { hibernate, wake } from './hibernate.js';
import { ls } from './ls.js';
import { may } from './may.js';
import { newWindow } from './new.js';
import { read } from './read.js';
import { receipt } from './receipt.js';
import { respawn } from './respawn.js';
import { restore } from './restore.js';
import { retry } from './retry.js';
import { send } from './send.js';
import { status } from './status.js';
import { stop } from './stop.js';
import { stopAgent } from './stop-agent.js';
import { subscribe } from './subscribe.js';
import { wait } from './wait.js';

export const SUPERVISOR_METHODS: readonly Method<MethodHost>[] = [
  ls, explain, subscribe, events, send, retry, receipt, wait, respawn, stopAgent, status, read, info, may, stop, restore, newWindow,
  inbox, answer, snooze, cancel, edit, hibernate, wake,
];

export { fleet } from './fleet.js';
export { fleetReload } from './fleet-reload.js';
export type { FleetHost } from './fleet-host.js';
export { supervisorHost, type HostOptions, type MethodHost } from './host.js';
export { handlerOf, method, type Method } from './method.js';
