// The fleet as its two methods see it (src/supervisor/main.ts followFleet serves them).

import type { HostStatus } from '../../fleet/link.js';

export interface FleetHost {
  hosts(): HostStatus[];
  now(): number;
  /** Reads config.toml's [fleet] again. */
  reload(): void;
}
