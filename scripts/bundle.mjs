// After tsc: bundles the CLI (dist/cli/main.js, each command a chunk of its own, the supervisor
// one of them) into dist/bundle/, with zod, commander, smol-toml, xterm and chokidar inside, and
// the fast reads (src/cli/read-fast.ts) into one CommonJS file, dist/bundle/fast/read-fast.cjs.
// Node loaded ~280 modules one by one to start a supervisor; from the bundle it loads 53 chunks,
// and zod's locales, which its entry points import whole, are left out. Loading what `nerdr
// supervise` needs went from 175-240 ms to 95-130 ms, a third of what a revival waits for
// (docs/performance.md, "Revival"). bin/nerdr.js runs the bundle when it is at least as new as
// dist/cli/main.js, the modules otherwise (and under NERDR_UNBUNDLED=1).
//
// The held supervisor (`nerdr -S <socket> supervise --holder`, what tmux's holder pane runs and
// a revival waits for: src/cli/held.ts) in one CommonJS file of its own, which bin/nerdr.js
// compiles with a V8 code cache kept beside it: a kill -9'd supervisor is ready again without
// the CLI's commander program, its 53 chunks or Node's ESM loader (docs/performance.md, "Revival").
//
// Without rolldown (a devDependency; it asks for Node 20.19+ or 22.12+) there is no bundle, the
// stale one is removed, and nerdr runs its modules: slower to start, the same otherwise.

import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist', 'bundle');

/** Left to Node at run time: blessed requires its widgets by computed names; execa loads on git's first use; playwright is for tests. */
const EXTERNAL = [/^node:/, 'blessed', 'execa', 'playwright-core'];

/** A module both imported and loaded lazily (config.js) stays where it is, as intended: no warning. */
function quietLazy(level, log, handler) {
  if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
  handler(level, log);
}

rmSync(out, { recursive: true, force: true });
let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch (err) {
  process.stderr.write(`nerdr: not bundled (${err.code ?? err.message}); the CLI loads its modules one by one, which starts it ~0.1 s slower\n`);
  process.exit(0);
}
const bundle = await rolldown({
  input: { main: path.join(root, 'dist', 'cli', 'main.js') },
  platform: 'node',
  external: EXTERNAL,
  onLog: quietLazy,
});
// source maps (to tsc's output) are read only under NERDR_DEBUG=1, for its stacks (bin/nerdr.js)
await bundle.write({ dir: out, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', sourcemap: true });
await bundle.close();

// The fast reads (`ls --json`, `status [--json]`: src/cli/read-fast.ts) in one file of their own,
// sharing no chunk with the CLI's: 7 modules loaded one by one cost such a read ~10 % of its time.
// CommonJS: bin/nerdr.js require()s it, and Node's ESM loader, which an ES module starts, cost
// such a read another ~10 % (docs/performance.md).
const fast = await rolldown({ input: { 'read-fast': path.join(root, 'dist', 'cli', 'read-fast.js') }, platform: 'node', external: EXTERNAL });
await fast.write({ dir: path.join(out, 'fast'), format: 'cjs', entryFileNames: '[name].cjs', sourcemap: true });
await fast.close();

// execa inside, loaded on git's first use all the same (a lazy module of the one file): a dynamic
// import() from code V8 took from the cache finds no loader on Node 20 ("A dynamic import
// callback was not specified"), so the held bundle has none
const held = await rolldown({ input: { held: path.join(root, 'dist', 'cli', 'held.js') }, platform: 'node', external: EXTERNAL.filter((e) => e !== 'execa'), onLog: quietLazy });
await held.write({ dir: path.join(out, 'held'), format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false, sourcemap: true });
await held.close();
const heldImports = [...readFileSync(path.join(out, 'held', 'held.cjs'), 'utf8').matchAll(/\bimport\(\s*["'`]([^"'`]*)/g)].map((m) => m[1]);
if (heldImports.length > 0) {
  process.stderr.write(`nerdr: the held supervisor's bundle would import() ${heldImports.join(', ')} at run time, which fails from V8's code cache on Node 20: bundle it (scripts/bundle.mjs, EXTERNAL)\n`);
  process.exit(1);
}
