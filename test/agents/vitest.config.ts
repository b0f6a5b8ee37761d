// The real-agent conformance suite: `npm run test:agents`. Not part of `npm test`.
// Files run one after the other: each drives a real agent CLI in its own tmux server, and
// timing-sensitive phases (a 3 s "working" window) should not fight for the 2 cores.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/agents/**/*.conformance.ts'],
    globalSetup: ['test/agents/setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
