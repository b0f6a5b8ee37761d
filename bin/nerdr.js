#!/usr/bin/env node
// Entry point. `nerdr hook` is on the agents' hot path, so it gets a loader that imports
// nothing else. The reads scripts poll (`ls --json`, `status [--json]`) are tried with builtins
// and the socket client alone (src/cli/read-fast.ts), which hands back whatever it does not
// answer. Every other command goes through the full CLI: its bundle (dist/bundle/, made by
// scripts/bundle.mjs after tsc) when that is at least as new as tsc's output, else the modules.
import { statSync } from 'node:fs';

/** A bundled entry, unless it is missing, older than tsc's build of it (a `tsc` alone since) or NERDR_UNBUNDLED=1. */
function entry(bundled, modules) {
  if (process.env.NERDR_UNBUNDLED === '1') return modules;
  try {
    if (statSync(new URL(bundled, import.meta.url)).mtimeMs >= statSync(new URL(modules, import.meta.url)).mtimeMs) return bundled;
  } catch {
    // no bundle (or no build at all: the import says so)
  }
  return modules;
}

// a stack under NERDR_DEBUG=1 names tsc's files and lines, not the bundle's (its source maps)
if (process.env.NERDR_DEBUG === '1') process.setSourceMapsEnabled(true);

try {
  if (process.argv[2] === 'hook') {
    await import('../dist/cli/hook-entry.js');
  } else {
    const args = process.argv.slice(2);
    const fast = args.includes('ls') || args.includes('status') ? await import(entry('../dist/bundle/fast/read-fast.js', '../dist/cli/read-fast.js')) : null;
    if (!(fast && (await fast.runFastRead(args)))) {
      const { main } = await import(entry('../dist/bundle/main.js', '../dist/cli/main.js'));
      await main(process.argv);
    }
  }
} catch (err) {
  // a clone (a TPM install) that was never built: say what to run, not a stack trace
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('/dist/')) throw err;
  if (process.argv[2] === 'hook') process.exit(0); // never in an agent's way
  const root = new URL('..', import.meta.url).pathname;
  process.stderr.write(`nerdr: this copy of nerdr is not built yet (no dist/)\n  fix: cd ${JSON.stringify(root)} && npm install\n`);
  process.exit(1);
}
