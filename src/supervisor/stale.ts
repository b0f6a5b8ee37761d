// Control clients on _nerdr left behind by a crashed supervisor: they would wedge `kill-server`
// on tmux < 3.7. Each is sent SIGTERM, given a second, then SIGKILL.

import { command } from '../tmux/quote.js';
import { pidAlive } from '../store/lock.js';
import { HIDDEN_SESSION } from './discover.js';
import { sleep, type Clock } from './clock.js';
import type { Logger } from './log.js';

export interface StaleClientDeps {
  run(cmd: string): Promise<string>;
  /** This supervisor's own control client (and its companions: the output keeper), never ended. */
  me: { name: string; pid: number; companions?: number[] };
  clock: Clock;
  log: Logger;
}

export async function endStaleClients(deps: StaleClientDeps): Promise<void> {
  const text = await deps.run(command('list-clients', '-F', '#{client_name}\t#{client_pid}\t#{client_control_mode}\t#{session_name}'));
  for (const line of text.split('\n')) {
    const [name, pid, control, session] = line.split('\t');
    if (control !== '1' || session !== HIDDEN_SESSION || name === deps.me.name) continue;
    const p = Number(pid);
    if (!Number.isInteger(p) || p <= 0 || p === deps.me.pid || deps.me.companions?.includes(p)) continue;
    deps.log('warn', `ending stale control client ${name} (pid ${p})`);
    try {
      process.kill(p, 'SIGTERM');
    } catch {
      continue;
    }
    const deadline = deps.clock.now() + 1000;
    while (deps.clock.now() < deadline && pidAlive(p)) await sleep(deps.clock, 20);
    if (pidAlive(p)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
}
