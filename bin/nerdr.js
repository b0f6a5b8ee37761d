#!/usr/bin/env node
// Entry point. `nerdr hook` is on the agents' hot path, so it gets a loader that imports
// nothing else; every other command goes through the full CLI.
try {
  if (process.argv[2] === 'hook') {
    await import('../dist/cli/hook-entry.js');
  } else {
    const { main } = await import('../dist/cli/main.js');
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
