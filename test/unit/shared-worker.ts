// The unit tier runs its files in shared workers (vitest.config.ts: isolate false), so a file's
// changes to the process must not reach the next file in the same worker: its environment, its
// working folder, its exit code, the spies and fake timers it left. Each file gets them back as
// they were before it. A file that mocks a module (vi.mock) cannot share a worker at all: the
// module is already loaded there. It is named in UNIT_OWN_WORKER instead.
import { afterAll, beforeAll, vi } from 'vitest';

let env: NodeJS.ProcessEnv = {};
let cwd = '';

beforeAll(() => {
  env = { ...process.env };
  cwd = process.cwd();
});

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (process.env[k] !== v) process.env[k] = v;
  if (process.cwd() !== cwd) process.chdir(cwd);
  process.exitCode = undefined;
});
