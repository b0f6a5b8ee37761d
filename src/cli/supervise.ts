// `nerdr supervise` runs the supervisor; `nerdr supervisor status|stop|restart` manage it.

import { Option, type Command } from 'commander';
import { exitFor, NerdrError } from '../errors.js';
import { serverFiles } from '../paths.js';
import { pidAlive, readLockHolder } from '../store/lock.js';
import { request, SocketRequestError } from '../supervisor/socket/index.js';
import { callerSecret, ensureSupervisor, socketError, tmuxSocket } from './context.js';
import { printJson } from './print.js';
import { age } from '../looks.js';
import { serverRunning, tmux } from '../tmux/server.js';
import { HIDDEN_SESSION } from '../supervisor/discover.js';
import { disarmArgs, findHolder, HOLDER_LIST_FORMAT, type HolderPane } from '../supervisor/holder.js';

interface Info {
  pid: number;
  ready: boolean;
  client: string;
  tmuxVersion: string;
  agents: number;
  uptimeMs: number;
  socket: string;
}

async function info(socketFile: string): Promise<Info | null> {
  try {
    return (await request(socketFile, 'nerdr.info', {}, { timeoutMs: 2000 })) as Info;
  } catch (err) {
    if (err instanceof SocketRequestError) return null;
    throw err;
  }
}

/**
 * Stops the supervisor for good. The one that answers is asked first, with the caller: an agent
 * window is refused (src/supervisor/methods/stop.ts), and then nothing is stopped or changed.
 * Then the holder pane is disarmed, so that nothing tmux does brings a supervisor back (a kill -9
 * moments before leaves tmux respawning one); any other supervisor that holds the lock (one tmux
 * was still starting) gets SIGTERM, SIGKILL after 5 s, and the holder pane is closed. A
 * supervisor ignores SIGHUP, so closing its pane alone would leave it running outside.
 */
async function stop(sock: string): Promise<boolean> {
  const files = serverFiles(sock);
  const running = await info(files.socket);
  if (running) {
    await request(files.socket, 'nerdr.stop', { caller: callerSecret() }, { timeoutMs: 2000 }).catch((err: unknown) => {
      if (err instanceof SocketRequestError && err.code === 'not_permitted') throw socketError(err);
    });
  }
  let holder: HolderPane | null = null;
  if (await serverRunning(sock)) {
    const listed = await tmux(sock, ['list-panes', '-s', '-t', `=${HIDDEN_SESSION}`, '-F', HOLDER_LIST_FORMAT]);
    holder = listed.code === 0 ? findHolder(listed.stdout) : null;
    if (holder) await tmux(sock, disarmArgs(holder.pane));
  }
  const pids = new Set<number>();
  const deadline = Date.now() + 5000;
  for (;;) {
    // the one that answered, and whoever holds the lock now (a start that was under way)
    for (const pid of [running?.pid, readLockHolder(files.lock)]) {
      if (!pid || !pidAlive(pid) || pids.has(pid)) continue;
      pids.add(pid);
      if (pid !== running?.pid) process.kill(pid, 'SIGTERM');
    }
    if (![...pids].some(pidAlive) || Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const pid of pids) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  if (holder) await tmux(sock, ['kill-pane', '-t', holder.pane]);
  return running !== null || pids.size > 0 || holder !== null;
}

export function register(program: Command): void {
  program
    .command('supervise')
    .description('run the supervisor for this tmux server (started on demand by other commands)')
    .option('--foreground', 'stay in the foreground and log to stderr too')
    .addOption(new Option('--holder', "run as tmux's held supervisor (in the hidden session's _supervisor pane)").hideHelp())
    .action(async (opts: { foreground?: boolean; holder?: boolean }, cmd: Command) => {
      const sock = await tmuxSocket(cmd);
      const { runSupervisor } = await import('../supervisor/main.js');
      if (opts.holder) {
        await runSupervisor(sock, { foreground: false, holder: true });
        return;
      }
      if (!opts.foreground) {
        await ensureSupervisor(sock);
        return;
      }
      await runSupervisor(sock, { foreground: process.env.NERDR_DETACHED !== '1' });
    });

  const sup = program.command('supervisor').description('the supervisor of this tmux server: status, stop, restart');
  sup
    .command('status')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const sock = await tmuxSocket(cmd);
      const files = serverFiles(sock);
      const i = await info(files.socket);
      if (opts.json) return printJson({ running: !!i, ...(i ?? {}), log: files.log });
      if (!i) {
        process.stdout.write(`not running (it starts on demand); log: ${files.log}\n`);
        process.exitCode = exitFor('not_running');
        return;
      }
      process.stdout.write(
        `running: pid ${i.pid}, up ${age(i.uptimeMs)}, ${i.agents} agent(s), control client ${i.client} on ${i.tmuxVersion}\nsocket: ${i.socket}\nlog: ${files.log}\n`,
      );
    });
  sup.command('stop').action(async (_opts: unknown, cmd: Command) => {
    const sock = await tmuxSocket(cmd);
    process.stdout.write((await stop(sock)) ? 'stopped\n' : 'not running\n');
  });
  sup
    .command('start')
    .description('start the supervisor if none runs (nerdr commands also start it when needed)')
    .option('--server', 'with no tmux server running, start one first (a session "work"), as `nerdr fleet start` asks')
    .action(async (opts: { server?: boolean }, cmd: Command) => {
      const sock = await tmuxSocket(cmd, { mustRun: !opts.server });
      if (opts.server && !(await serverRunning(sock))) {
        const r = await tmux(sock, ['new-session', '-d', '-s', 'work'], { startServer: true });
        if (r.code !== 0) throw new NerdrError(`cannot start a tmux server at ${sock}: ${r.stderr.trim()}`, `try it by hand: tmux -S ${sock} new-session -d -s work`);
        process.stdout.write(`tmux: started (session work) at ${sock}\n`);
      }
      const was = await info(serverFiles(sock).socket);
      await ensureSupervisor(sock);
      const i = await info(serverFiles(sock).socket);
      if (!i) throw new NerdrError('the supervisor did not start', `see its log: ${serverFiles(sock).log}`, { code: 'supervisor_failed' });
      process.stdout.write(was ? `running: pid ${i.pid}\n` : `started: pid ${i.pid}\n`);
    });
  sup.command('restart').action(async (_opts: unknown, cmd: Command) => {
    const sock = await tmuxSocket(cmd);
    await stop(sock);
    await ensureSupervisor(sock);
    const i = await info(serverFiles(sock).socket);
    if (!i) throw new NerdrError('the supervisor did not come back', `see its log: ${serverFiles(sock).log}`, { code: 'supervisor_failed' });
    process.stdout.write(`restarted: pid ${i.pid}\n`);
  });
}
