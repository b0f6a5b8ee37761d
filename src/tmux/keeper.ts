// A second control client that takes no output, so that a stalled supervisor never holds up an
// agent. tmux stops reading a pane when every attached client is a control client too far behind
// to take more of its output (server_client_check_pane_buffer: off unless some client can take
// it); the agent's program then blocks on its next write for as long as nerdr is stopped. A
// client with the no-output flag always counts as able (control_pane_offset), so while it is
// attached tmux reads every pane on, and our own client's backlog is bounded by pause-after:
// tmux drops it and says %pause, and the supervisor takes the screen again. Its stdin is a pipe
// from the supervisor, so it ends with the supervisor (EOF), never outliving it; its output goes
// to /dev/null, so it can never fall behind itself. It is not read-only: tmux 3.7c runs a
// command from a shell outside tmux as some attached client, and a read-only one refuses it
// (`tmux send-keys …`: "client is read-only").

import { spawn, type ChildProcess } from 'node:child_process';
import { tmuxArgv } from './server.js';

export class OutputKeeper {
  private readonly child: ChildProcess;
  private closed = false;

  constructor(socketPath: string, session: string, tmuxBin = 'tmux') {
    this.child = spawn(tmuxBin, tmuxArgv(['-N', '-S', socketPath], ['-C', 'attach-session', '-f', 'no-output,ignore-size', '-t', `=${session}`]), {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    this.child.stdin?.on('error', () => undefined);
    this.child.on('error', () => undefined);
    this.child.on('close', () => (this.closed = true));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Detaches: tmux ends a control client whose stdin ends. */
  close(): void {
    if (this.closed) return;
    this.child.stdin?.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    t.unref();
  }
}
