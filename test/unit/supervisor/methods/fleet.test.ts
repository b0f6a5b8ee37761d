// The fleet's two methods on a fake fleet: they touch no tmux, so no rig.
import { describe, expect, it } from 'vitest';
import type { HostStatus } from '../../../../src/fleet/link.js';
import { fleet } from '../../../../src/supervisor/methods/fleet.js';
import { fleetReload } from '../../../../src/supervisor/methods/fleet-reload.js';
import type { FleetHost } from '../../../../src/supervisor/methods/fleet-host.js';
import { call } from './call.js';

/** A fleet of the hosts config.toml names; `reload` reads the next list. */
function fakeFleet(lists: string[][]): FleetHost & { reloads: number } {
  let names = lists.shift() ?? [];
  return {
    reloads: 0,
    hosts: () => names.map((name) => ({ name, state: 'connecting' }) as HostStatus),
    now: () => 1234,
    reload() {
      this.reloads++;
      names = lists.shift() ?? names;
    },
  };
}

describe('nerdr.fleet and nerdr.fleet-reload', () => {
  it('fleet answers the hosts as they are; fleet-reload reads the config first', async () => {
    const f = fakeFleet([['build'], ['build', 'gpu']]);
    expect(await call(fleet, f, {})).toEqual({ hosts: [{ name: 'build', state: 'connecting' }], now: 1234 });
    expect(f.reloads).toBe(0);
    expect((await call(fleetReload, f, {})).hosts.map((h: HostStatus) => h.name)).toEqual(['build', 'gpu']);
    expect(f.reloads).toBe(1);
  });

  it('params that are not an object are invalid_params, and nothing is read again', async () => {
    const f = fakeFleet([['build']]);
    await expect(call(fleet, f, 'x')).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.fleet: params must be an object, not a string' });
    await expect(call(fleetReload, f, [])).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.fleet-reload: params must be an object, not an array' });
    expect(f.reloads).toBe(0);
  });
});
