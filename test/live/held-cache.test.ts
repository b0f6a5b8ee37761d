// The held supervisor (what tmux's holder pane runs: bin/nerdr.js, src/cli/held.ts) starts from a
// bundle of its own compiled with a V8 code cache kept beside it, written once a supervisor is
// ready and taken by the next start. A cache V8 refuses (here: garbage under the right stamp, as a
// disk fault would leave it) costs a revival only the compile: the supervisor tmux revives is ready,
// and writes the cache anew.

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, pidAlive, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

const BUNDLE = path.join(REPO_ROOT, 'dist', 'bundle', 'held', 'held.cjs');
// the supervisor runs on the Node that runs the CLI, which the live tests run on this one
const CACHE = `${BUNDLE}.${process.arch}-v8-${process.versions.v8}.cache`;
const GARBAGE = 'x'.repeat(64 * 1024);

/** The cache's stamp for the bundle as built now (its size and time), without the flags' part. */
function stampPrefix(): string {
  const st = statSync(BUNDLE);
  return `nerdr ${st.size} ${st.mtimeMs} `;
}

/** The cache's first line, or '' when there is none. */
function cacheStamp(): string {
  try {
    const b = readFileSync(CACHE);
    return b.subarray(0, b.indexOf(10) + 1).toString();
  } catch {
    return '';
  }
}

// without rolldown (a devDependency) there is no bundle and the holder runs tsc's modules
describe.skipIf(!tmuxAvailable || !existsSync(BUNDLE))('the held supervisor\'s code cache', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
  }, 60_000);
  afterAll(async () => {
    await env?.cleanup();
  });

  it('is written for the bundle as built; one V8 refuses costs the revived supervisor nothing but the compile, and is written anew', async () => {
    // `supervise` starts one (a read with no windows needs none)
    expect((await env.nerdr('supervise')).code).toBe(0);
    // this supervisor's, or an earlier one's of the same build (live tests share dist/)
    const stamp = await waitFor(() => (cacheStamp().startsWith(stampPrefix()) ? cacheStamp() : undefined), { timeoutMs: 15_000, what: 'a code cache stamped for this bundle' });
    expect(stamp.endsWith('\n')).toBe(true);

    writeFileSync(CACHE, stamp + GARBAGE);
    const old = (await env.supervisorPid())!;
    expect(old).toBeGreaterThan(0);
    process.kill(old, 'SIGKILL');
    // no command starts one: tmux revives it (supervisorPid only asks)
    const pid = await waitFor(async () => {
      const p = await env.supervisorPid();
      return p !== null && p !== old ? p : undefined;
    }, { timeoutMs: 15_000, what: 'a revived supervisor' });
    expect(pidAlive(pid)).toBe(true);
    await waitFor(() => {
      const b = readFileSync(CACHE);
      return b.subarray(0, stamp.length).toString() === stamp && !b.subarray(stamp.length).toString('latin1').startsWith(GARBAGE.slice(0, 64));
    }, { timeoutMs: 15_000, what: 'the cache written anew' });
    expect((await env.lsJson()).length).toBe(0);
    expect(env.supervisorLog()).not.toMatch(/ error /);
  }, 60_000);
});
