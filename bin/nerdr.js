#!/usr/bin/env node
// Entry point. `nerdr hook` is on the agents' hot path, so it gets a loader that imports
// nothing else; every other command goes through the full CLI: its bundle (dist/bundle/, made by
// scripts/bundle.mjs after tsc) when that is at least as new as tsc's output, else the modules.
import { statSync } from 'node:fs';

/** The bundle, unless it is missing, older than tsc's last build (a `tsc` alone since) or NERDR_UNBUNDLED=1. */
function cliEntry() {
  if (process.env.NERDR_UNBUNDLED === '1') return '../dist/cli/main.js';
  try {
    const bundled = statSync(new URL('../dist/bundle/main.js', import.meta.url)).mtimeMs;
    if (bundled >= statSync(new URL('../dist/cli/main.js', import.meta.url)).mtimeMs) return '../dist/bundle/main.js';
  } catch {
    // no bundle (or no build at all: the import below says so)
  }
  return '../dist/cli/main.js';
}

// a stack under NERDR_DEBUG=1 names tsc's files and lines, not the bundle's (its source maps)
if (process.env.NERDR_DEBUG === '1') process.setSourceMapsEnabled(true);

try {
  if (process.argv[2] === 'hook') {
    await import('../dist/cli/hook-entry.js');
  } else {
    const { main } = await import(cliEntry());
    await main(process.argv);
  }
} catch (err) {
  // a clone (a TPM install) that was never built: say what to run, not a stack trace
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('/dist/')) throw err;
  if (process.argv[2] === 'hook') process.exit(0); // never in an agent's way
  const root = new URL('..', import.meta.url).pathname;
  process.stderr.write(`nerdr: this copy of nerdr is not built yet (no dist/)\n  fix: cd ${JSON.stringify(root)} && npm install\n`);
  process.exit(1);
}
