#!/usr/bin/env node
// Entry point, CommonJS (bin/package.json): the reads scripts poll (`ls --json`, `status
// [--json]`) are tried with builtins and the socket client alone (src/cli/read-fast.ts, bundled
// as CommonJS), loaded with require(), so they never start Node's ESM loader (~10 % of such a
// read: docs/performance.md). Those hand back whatever they do not answer. `nerdr hook` is on
// the agents' hot path, so it gets a loader that imports nothing else. Every other command goes
// through the full CLI: its bundle (dist/bundle/, made by scripts/bundle.mjs after tsc) when that
// is at least as new as tsc's output, else the modules.
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

/** An ES module of dist/ (tsc's or the bundle's). */
const load = (file) => import(pathToFileURL(file).href);

async function run() {
  if (process.argv[2] === 'hook') {
    await load(path.join(__dirname, '../dist/cli/hook-entry.js'));
    return;
  }
  const args = process.argv.slice(2);
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
