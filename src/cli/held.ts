// `nerdr -S <socket> supervise --holder`, as tmux's holder pane runs it (holderArgv,
// src/supervisor/holder.ts): the start a revival waits for. bin/nerdr.js runs it from a CommonJS
// bundle of its own (dist/bundle/held/held.cjs, scripts/bundle.mjs) compiled with a V8 code
// cache, without commander and the CLI's chunks; `nerdr supervise --holder` typed by hand goes
// through the CLI to the same runSupervisor. docs/performance.md, "Revival".

import { report } from '../errors.js';
import { runSupervisor } from '../supervisor/main.js';
import { resolveSocket } from '../tmux/server.js';
import { visible } from '../text.js';

/**
 * Runs the held supervisor for the tmux server at `socket`. `onReady`: called once it answers
 * and its lights are painted (bin/nerdr.js keeps the code cache then). An error is printed as the
 * CLI prints one (to the holder's log) and sets the exit code.
 */
export async function runHeld(socket: string, onReady?: () => void): Promise<void> {
  try {
    await runSupervisor(resolveSocket({ socket }), { foreground: false, holder: true, ...(onReady ? { onReady } : {}) });
  } catch (err) {
    const out = report(err, process.env.NERDR_DEBUG === '1');
    process.stderr.write(visible(out.text, { lines: true }));
    process.exitCode = out.exit;
  }
}
