// The suite's view of src/selftest/session.ts: runs in .cache/agents/runs, screens committed
// under test/agents/screens/<agent>[@<version>], the agent from the suite's own install.

import path from 'node:path';
import { AgentRun as Session, type LaunchOptions } from '../../src/selftest/session.js';
import { BIN_DIR, RUNS_DIR, SCREENS_DIR } from './versions.js';

export * from '../../src/selftest/session.js';

export interface SuiteRunOptions extends LaunchOptions {
  /** Where the agent's command is (default: the pinned install's). */
  binDir?: string;
  /** The folder of test/agents/screens this run saves into (default: the agent's name). */
  screens?: string;
}

export class AgentRun extends Session {
  constructor(opts: SuiteRunOptions) {
    const { binDir, screens, ...launch } = opts;
    super({
      ...launch,
      runsDir: RUNS_DIR,
      screensDir: path.join(SCREENS_DIR, screens ?? opts.agent),
      path: `${binDir ?? BIN_DIR}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    });
  }
}
