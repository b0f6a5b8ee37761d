// Control clients on _nerdr left behind by a crashed supervisor: they would wedge `kill-server`
// on tmux < 3.7. Each is sent SIGTERM, given a second, then SIGKILL. The supervisor ends them
// before its own clients attach (a plain `tmux list-clients`), and once more after: a client that
// detaches while another control client is still identifying itself crashes tmux before 3.7 (the
// notification goes to a client with no control state yet; tmux#4980).

import { pidAlive } from '../store/lock.js';
import { HIDDEN_SESSION } from './discover.js';
import { until, type Clock } from './clock.js';
import type { Logger } from './log.js';

export interface StaleClientDeps {
  /** `list-clients -F format`'s output. */
  list(format: string): Promise<string>;
  /** This supervisor's own control client (and its companions: the output keeper), never ended. */
  me: { name: string; pid: number; companions?: number[] };
  clock: Clock;
  log: Logger;
}

const FORMAT = '#{client_name}\t#{client_pid}\t#{client_control_mode}\t#{session_name}';

/** Ends them, and returns once tmux lists none of them any more (2 s at most): a dead client's detach is tmux's own work, done after its process went. */
export async function endStaleClients(deps: StaleClientDeps): Promise<void> {
  const ended = await endListed(deps, await deps.list(FORMAT));
  if (!ended.length) return;
  let still: string[] = [];
  const listed = async (): Promise<string[]> => (await deps.list(FORMAT)).split('\n').map((l) => l.split('\t')[0]!).filter((name) => ended.includes(name));
  if (!(await until(deps.clock, async () => (still = await listed()).length === 0, 2000, 10))) {
    deps.log('warn', `tmux still lists ${still.join(', ')} 2 s after it ended; going on`);
  }
}

/** The names of the stale clients it ended. */
async function endListed(deps: StaleClientDeps, text: string): Promise<string[]> {
  const ended: string[] = [];
  for (const line of text.split('\n')) {
    const [name, pid, control, session] = line.split('\t');
    if (control !== '1' || session !== HIDDEN_SESSION || name === deps.me.name) continue;
    const p = Number(pid);
    if (!Number.isInteger(p) || p <= 0 || p === deps.me.pid || deps.me.companions?.includes(p)) continue;
    deps.log('warn', `ending stale control client ${name} (pid ${p})`);
    ended.push(name!);
    try {
      process.kill(p, 'SIGTERM');
    } catch {
      continue;
    }
    if (!(await until(deps.clock, () => !pidAlive(p), 1000, 20))) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  return ended;
}
