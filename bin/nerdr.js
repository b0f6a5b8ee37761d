#!/usr/bin/env node
// Entry point. `nerdr hook` is on the agents' hot path, so it gets a loader that imports
// nothing else; every other command goes through the full CLI.
if (process.argv[2] === 'hook') {
  await import('../dist/cli/hook-entry.js');
} else {
  const { main } = await import('../dist/cli/main.js');
  await main(process.argv);
}
