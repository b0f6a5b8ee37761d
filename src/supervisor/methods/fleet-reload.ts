// `nerdr.fleet-reload`: config.toml's [fleet] read again (after `nerdr fleet add` / `rm`), then
// what `nerdr.fleet` answers.

import { method } from './method.js';
import type { FleetHost } from './fleet-host.js';

export const fleetReload = method('nerdr.fleet-reload', (host: FleetHost) => {
  host.reload();
  return { hosts: host.hosts(), now: host.now() };
});
