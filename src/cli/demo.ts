// `nerdr demo`: three simulated agents, so the lights can be seen without any real agent.
// Inside tmux it adds the windows to the current session; outside it starts a private
// server (-L nerdr-demo) with a session for the demo and attaches to it.

import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Command } from 'commander';
import { AGENTS } from '../integrations/agents.js';
import { nerdrBin, packageRoot, serverFiles } from '../paths.js';
import type { AgentRow } from '../protocol/index.js';
import { serverRunning, tmuxOk, checkTmuxVersion } from '../tmux/server.js';
import { call, callerSecret, callerSession, globalOpts, tmuxSocket } from './context.js';
import { createWindow } from './new.js';
import { onPath } from '../integrations/plan.js';
import { installLights } from './tmux.js';

const DEMO_SERVER = 'nerdr-demo';
const DEMO_SESSION = 'demo';

const AGENT_ARGS = [
  { name: 'demo-fast', args: ['--auto', '5', '--work', '4'] },
  { name: 'demo-asks', args: ['--auto', '8', '--work', '3', '--ask'] },
  { name: 'demo-slow', args: ['--auto', '12', '--work', '8'] },
];

const GUIDE = 'nerdr-guide';

/** The nerdr command as the user can type it (`nerdr` when on PATH, else this copy's bin), with the server flag. */
function nerdrCommand(serverFlag: string): string {
  const base = onPath('nerdr') ? 'nerdr' : `node ${JSON.stringify(nerdrBin)}`;
  return serverFlag ? `${base} ${serverFlag}` : base;
}

/** The guide's program: a plain process that reads the supervisor's agent list. */
function guideArgv(sock: string, serverFlag: string, ownServer: boolean): string[] {
  const end = ownServer ? `tmux -L ${DEMO_SERVER} kill-server` : `${nerdrCommand(serverFlag)} demo --stop`;
  return [process.execPath, path.join(packageRoot, 'dist', 'demo', 'guide.js'), serverFiles(sock).socket, nerdrCommand(serverFlag), end];
}

/** The window's number in the user's session (the one in the status bar), not in _nerdr. */
async function windowIndex(sock: string, session: string, window: string): Promise<string> {
  return (await tmuxOk(sock, ['display', '-p', '-t', `=${session}:${window}`, '#{window_index}'])).trim();
}

export function register(program: Command): void {
  program
    .command('demo')
    .description('three windows of a simulated agent and a guide, to show the lights (outside tmux: in a tmux session of its own); run again, it reuses them')
    .option('--no-attach', 'outside tmux: start the demo session but do not attach to it')
    .option('--stop', 'end the demo: its agents and its guide window')
    .action(async (opts: { attach?: boolean; stop?: boolean }, cmd: Command) => {
      await checkTmuxVersion();
      const g = globalOpts(cmd);
      const inside = !!process.env.TMUX || !!g.L || !!g.S;
      let target: string | undefined;
      if (!inside) cmd.parent!.setOptionValue('L', DEMO_SERVER); // the rest as if -L had been given
      const sock = await tmuxSocket(cmd, { mustRun: false });
      // commands in the guide and here carry the server they were given (or the demo's own)
      const serverFlag = !inside ? `-L ${DEMO_SERVER}` : g.L ? `-L ${g.L}` : g.S ? `-S ${JSON.stringify(g.S)}` : '';
      if (opts.stop) return stopDemo(cmd, sock);
      if (!inside) {
        if (!(await serverRunning(sock))) {
          // the guide is the session's first window, so the demo opens on it
          await tmuxOk(sock, ['new-session', '-d', '-s', DEMO_SESSION, '-n', GUIDE, '-x', '160', '-y', '45', ...guideArgv(sock, serverFlag, true)], { startServer: true });
          await tmuxOk(sock, ['set-option', '-g', 'status-right-length', '80']);
        }
        target = DEMO_SESSION;
        await installLights(sock);
      }
      const { agents } = await call<{ agents: AgentRow[] }>(cmd, 'nerdr.ls', {}, { whenNone: () => ({ agents: [] }) });
      const session = target ?? (await callerSessionName(sock));
      const here = (name: string) => agents.find((a) => a.name === name && a.sessions.includes(session) && a.state !== 'exited');
      let guide = (await tmuxOk(sock, ['list-windows', '-t', `=${session}`, '-F', '#{window_id} #{window_name}'])).split('\n').find((l) => l.endsWith(` ${GUIDE}`))?.split(' ')[0];
      if (!guide) {
        const r = await createWindow(cmd, { agent: 'term', name: GUIDE, cwd: process.cwd(), argv: guideArgv(sock, serverFlag, !inside), watched: false, target, detach: true });
        guide = r.window;
      }
      const windows: string[] = [];
      let reused = 0;
      for (const a of AGENT_ARGS) {
        const there = here(a.name);
        if (there) {
          reused++;
          windows.push(there.window);
          continue;
        }
        const r = await createWindow(cmd, {
          agent: 'demo',
          name: a.name,
          cwd: process.cwd(),
          argv: [...AGENTS.demo!.command, ...a.args],
          watched: true,
          target,
          detach: true,
        });
        windows.push(r.window);
      }
      if (inside && process.env.TMUX_PANE && !target) await tmuxOk(sock, ['select-window', '-t', guide]);
      const numbers = await Promise.all(windows.map((w) => windowIndex(sock, session, w)));
      const guideNumber = await windowIndex(sock, session, guide);
      process.stdout.write(
        `${reused === AGENT_ARGS.length ? 'the demo was already running: ' : ''}demo agents in windows ${numbers.join(', ')}; the guide is window ${guideNumber}.\n` +
          `Try: ${nerdrCommand(serverFlag)} ls\n`,
      );
      if (!inside) {
        if (opts.attach !== false && process.stdin.isTTY && process.stdout.isTTY) {
          await tmuxOk(sock, ['select-window', '-t', guide]);
          const child = spawn('tmux', ['-L', DEMO_SERVER, 'attach', '-t', `=${DEMO_SESSION}`], { stdio: 'inherit' });
          await new Promise((resolve) => child.on('close', resolve));
          process.stdout.write(`left the demo; it keeps running: npm run demo (or tmux -L ${DEMO_SERVER} attach) comes back  ·  end it: tmux -L ${DEMO_SERVER} kill-server\n`);
        } else {
          process.stdout.write(`attach with: tmux -L ${DEMO_SERVER} attach -t ${DEMO_SESSION}   ·  end it: tmux -L ${DEMO_SERVER} kill-server\n`);
        }
      }
    });
}

/** The session of the calling client, by name. */
async function callerSessionName(sock: string): Promise<string> {
  const id = await callerSession(sock, undefined);
  return (await tmuxOk(sock, ['display', '-p', '-t', `${id}:`, '#{session_name}'])).trim();
}

async function stopDemo(cmd: Command, sock: string): Promise<void> {
  if (!(await serverRunning(sock))) return void process.stdout.write('no demo is running\n');
  const { agents } = await call<{ agents: AgentRow[] }>(cmd, 'nerdr.ls', {}, { whenNone: () => ({ agents: [] }) });
  let n = 0;
  for (const a of agents.filter((x) => AGENT_ARGS.some((d) => d.name === x.name) && x.agent === 'demo')) {
    await call(cmd, 'nerdr.stop-agent', { target: a.window, caller: callerSecret() });
    n++;
  }
  const guides = (await tmuxOk(sock, ['list-windows', '-a', '-F', '#{window_id} #{window_name}'])).split('\n').filter((l) => l.endsWith(` ${GUIDE}`));
  for (const l of guides) await tmuxOk(sock, ['kill-window', '-t', l.split(' ')[0]!]);
  process.stdout.write(`stopped ${n} demo agent${n === 1 ? '' : 's'}${guides.length ? ' and the guide' : ''}\n`);
}
