// `nerdr demo`: three simulated agents, so the lights can be seen without any real agent.
// Inside tmux it adds the windows to the current session; outside it starts a private
// server (-L nerdr-demo) with a session for the demo and attaches to it.

import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { AGENTS } from '../integrations/agents.js';
import { resolveSocket, serverRunning, tmuxOk, checkTmuxVersion } from '../tmux/server.js';
import { globalOpts } from './context.js';
import { createWindow } from './new.js';
import { installLights } from './tmux.js';

const DEMO_SERVER = 'nerdr-demo';
const DEMO_SESSION = 'demo';

const AGENT_ARGS = [
  { name: 'demo-fast', args: ['--auto', '5', '--work', '4'] },
  { name: 'demo-asks', args: ['--auto', '8', '--work', '3', '--ask'] },
  { name: 'demo-slow', args: ['--auto', '12', '--work', '8'] },
];

export function register(program: Command): void {
  program
    .command('demo')
    .description('open three windows of a simulated agent to show the lights (outside tmux: in a tmux session of its own)')
    .option('--no-attach', 'outside tmux: start the demo session but do not attach to it')
    .action(async (opts: { attach?: boolean }, cmd: Command) => {
      await checkTmuxVersion();
      const g = globalOpts(cmd);
      const inside = !!process.env.TMUX || !!g.L || !!g.S;
      let target: string | undefined;
      if (!inside) {
        // run the rest against the demo server, exactly as if -L had been given
        cmd.parent!.setOptionValue('L', DEMO_SERVER);
        const sock = resolveSocket({ name: DEMO_SERVER });
        if (!(await serverRunning(sock))) {
          await tmuxOk(sock, ['new-session', '-d', '-s', DEMO_SESSION, '-x', '160', '-y', '45'], { startServer: true });
          await tmuxOk(sock, ['set-option', '-g', 'status-right-length', '80']);
        }
        target = DEMO_SESSION;
        await installLights(sock);
      }
      const windows: string[] = [];
      for (const a of AGENT_ARGS) {
        const r = await createWindow(cmd, {
          agent: 'demo',
          name: a.name,
          cwd: process.cwd(),
          argv: [...AGENTS.demo!.command, ...a.args],
          watched: true,
          target,
          detach: windows.length > 0,
        });
        windows.push(r.window);
      }
      process.stdout.write(
        `demo agents in windows ${windows.join(' ')}: watch their lights in the status bar.\n` +
          `Each works, sometimes asks "Do you want to proceed?" (press 1 in its window), and finishes.\n` +
          `nerdr ls shows their states.\n`,
      );
      if (!inside) {
        if (opts.attach !== false && process.stdin.isTTY && process.stdout.isTTY) {
          const child = spawn('tmux', ['-L', DEMO_SERVER, 'attach', '-t', `=${DEMO_SESSION}`], { stdio: 'inherit' });
          await new Promise((resolve) => child.on('close', resolve));
          process.stdout.write(`left the demo; it keeps running: tmux -L ${DEMO_SERVER} attach  ·  end it: tmux -L ${DEMO_SERVER} kill-server\n`);
        } else {
          process.stdout.write(`attach with: tmux -L ${DEMO_SERVER} attach -t ${DEMO_SESSION}   ·  end it: tmux -L ${DEMO_SERVER} kill-server\n`);
        }
      }
    });
}
