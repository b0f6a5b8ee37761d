#!/usr/bin/env node
// Entry point, CommonJS (bin/package.json): the reads scripts poll (`ls --json`, `status
// [--json]`) are tried with builtins and the socket client alone (src/cli/read-fast.ts, bundled
// as CommonJS), loaded with require(), so they never start Node's ESM loader (~10 % of such a
// read: docs/performance.md). Those hand back whatever they do not answer. `nerdr hook` is on
// the agents' hot path, so it gets a loader that imports nothing else. Every other command goes
// through the full CLI: its bundle (dist/bundle/, made by scripts/bundle.mjs after tsc) when that
// is at least as new as tsc's output, else the modules. The held supervisor, which tmux's holder
// pane starts (`-S <socket> supervise --holder`) and a revival waits for, runs from a CommonJS
// bundle of its own compiled with a V8 code cache (heldCached below).
'use strict';
const { statSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

/** A bundled entry, unless it is missing, older than tsc's build of it (a `tsc` alone since) or NERDR_UNBUNDLED=1. */
function entry(bundled, modules) {
  const b = path.join(__dirname, bundled);
  const m = path.join(__dirname, modules);
  if (process.env.NERDR_UNBUNDLED === '1') return m;
  try {
    if (statSync(b).mtimeMs >= statSync(m).mtimeMs) return b;
  } catch {
    // no bundle (or no build at all: the import says so)
  }
  return m;
}

/**
 * The held supervisor's bundle (src/cli/held.ts), compiled with V8's code cache of it: the
 * bytecode of what its last start ran, so this start compiles next to nothing. The cache is kept
 * beside the bundle, named by the V8 it is for, and stamped with the bundle's size and time and
 * Node's flags (V8 checks its version and flags, but of the source only its length); a missing,
 * stale or rejected one is written anew once the supervisor is ready, and a folder nerdr may not
 * write to (a global install run by another user) only goes without. docs/performance.md, "Revival".
 */
function heldCached(file) {
  const { readFileSync, renameSync, unlinkSync, writeFileSync } = require('node:fs');
  const vm = require('node:vm');
  const { createRequire } = require('node:module');
  const st = statSync(file);
  const cacheFile = `${file}.${process.arch}-v8-${process.versions.v8}.cache`;
  const stamp = `nerdr ${st.size} ${st.mtimeMs} ${process.execArgv.join(' ')}\n`;
  let cached;
  try {
    const kept = readFileSync(cacheFile);
    if (kept.subarray(0, Buffer.byteLength(stamp)).toString() === stamp) cached = kept.subarray(Buffer.byteLength(stamp));
  } catch {
    // none yet
  }
  // CommonJS's own wrapper. No import() in it: code V8 takes from the cache finds no loader for
  // one on Node 20 (scripts/bundle.mjs bundles execa and refuses a bundle that has one)
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`, { filename: file, cachedData: cached });
  // the cache's bytes are not held past the compile (the supervisor keeps its memory small)
  const taken = cached !== undefined && !script.cachedDataRejected;
  cached = undefined;
  const mod = { exports: {} };
  script.runInThisContext().call(mod.exports, mod.exports, createRequire(file), mod, file, path.dirname(file));
  const keep = () => {
    if (taken) return;
    const tmp = `${cacheFile}.${process.pid}`;
    try {
      writeFileSync(tmp, Buffer.concat([Buffer.from(stamp), script.createCachedData()]));
      renameSync(tmp, cacheFile);
    } catch {
      try {
        unlinkSync(tmp);
      } catch {
        // not written at all
      }
    }
  };
  return { exports: mod.exports, keep };
}

/** The socket of `nerdr -S <socket> supervise --holder` (holderArgv, src/supervisor/holder.ts), or null. */
function heldSocket(args) {
  return args.length === 4 && args[0] === '-S' && args[2] === 'supervise' && args[3] === '--holder' ? args[1] : null;
}

/** An ES module of dist/ (tsc's or the bundle's). */
const load = (file) => import(pathToFileURL(file).href);

async function run() {
  if (process.argv[2] === 'hook') {
    await load(path.join(__dirname, '../dist/cli/hook-entry.js'));
    return;
  }
  const args = process.argv.slice(2);
  const held = heldSocket(args);
  if (held !== null) {
    const file = entry('../dist/bundle/held/held.cjs', '../dist/cli/held.js');
    if (file.endsWith('.cjs')) {
      const { exports, keep } = heldCached(file);
      // after the start, which the next one's cache should hold compiled
      await exports.runHeld(held, () => setImmediate(keep));
    } else {
      await (await load(file)).runHeld(held);
    }
    return;
  }
  if (args.includes('ls') || args.includes('status')) {
    const file = entry('../dist/bundle/fast/read-fast.cjs', '../dist/cli/read-fast.js');
    const fast = file.endsWith('.cjs') ? require(file) : await load(file);
    if (await fast.runFastRead(args)) return;
  }
  const { main } = await load(entry('../dist/bundle/main.js', '../dist/cli/main.js'));
  await main(process.argv);
}

// a stack under NERDR_DEBUG=1 names tsc's files and lines, not the bundle's (its source maps)
if (process.env.NERDR_DEBUG === '1') process.setSourceMapsEnabled(true);

run().catch((err) => {
  // a clone (a TPM install) that was never built: say what to run, not a stack trace
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('/dist/')) {
    // as an uncaught error: Node prints it and exits 1
    process.nextTick(() => {
      throw err;
    });
    return;
  }
  if (process.argv[2] === 'hook') process.exit(0); // never in an agent's way
  const root = path.resolve(__dirname, '..');
  process.stderr.write(`nerdr: this copy of nerdr is not built yet (no dist/)\n  fix: cd ${JSON.stringify(root)} && npm install\n`);
  process.exit(1);
});
