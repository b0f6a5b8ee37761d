// The stress suite: `npm run test:stress`. Not part of `npm test`: it drives the real
// supervisor's socket with thousands of connections and watches its memory.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/stress/**/*.stress.ts'],
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
