// A private tmux server for the src/tmux tests: `tmux -L nerdr-test-<random> -f /dev/null`,
// one session `user` 120x40, killed (and its pid checked gone) by stop().
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

export const tmuxAvailable: boolean = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

export const testEnv: NodeJS.ProcessEnv = (() => {
  const e: NodeJS.ProcessEnv = { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
  delete e.TMUX;
  delete e.TMUX_PANE;
  return e;
})();

export interface PrivateServer {
  name: string;
  socketPath: string;
  pid: number;
  /** `tmux -L name …`, stdout as text; rejects on a non-zero exit. */
  tmux(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export async function startServer(): Promise<PrivateServer> {
  const name = `nerdr-test-${randomBytes(6).toString('hex')}`;
  const base = ['-L', name, '-f', '/dev/null'];
  const tmux = async (...args: string[]): Promise<string> => (await execFileP('tmux', [...base, ...args], { env: testEnv, encoding: 'utf8' })).stdout;
  // /bin/sh, not the user's login shell: an interactive bash reads ~/.bashrc, which can take a
  // minute on a machine whose rc files do slow work (pyenv init here)
  await tmux('new-session', '-d', '-s', 'user', '-x', '120', '-y', '40', '/bin/sh');
  await tmux('set-option', '-g', 'default-shell', '/bin/sh');
  const [socketPath = '', pid = ''] = (await tmux('display', '-p', '#{socket_path}\t#{pid}')).trim().split('\t');
  return {
    name,
    socketPath,
    pid: Number(pid),
    tmux,
    async stop() {
      await tmux('kill-server').catch(() => undefined);
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && alive(Number(pid))) await new Promise((r) => setTimeout(r, 20));
      if (alive(Number(pid))) process.kill(Number(pid), 'SIGKILL');
      // tmux leaves its socket file behind after kill-server
      if (socketPath && !alive(Number(pid))) rmSync(socketPath, { force: true });
    },
  };
}

export function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// deadlines are generous: a shell starting in a pane on a busy CI machine can take seconds
export async function waitFor<T>(what: string, fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
