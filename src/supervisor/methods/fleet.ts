// `nerdr.fleet`: the fleet's hosts and their agents (docs/fleet.md).

import { method } from './method.js';
import type { FleetHost } from './fleet-host.js';

export const fleet = method('nerdr.fleet', (host: FleetHost) => ({ hosts: host.hosts(), now: host.now() }));
