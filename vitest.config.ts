// `npm test`: the unit tests, then the live tests against real tmux, in tiers (docs/testing.md).
//
// - unit: pure logic, CPU-bound, first.
// - live: tests that mostly wait (on tmux, on timers, on the supervisor), several files at once.
// - floods: tests that flood output or events, or time a stall: after every other live test, two
//   files at a time (one per core), across every tmux.
// - timed: a test that holds nerdr to a time under a load of its own making (the revival's 2 s
//   during a burst of hooks): last, one file at a time, so that no flood's CPU is in its figure.
//
// The live tests run on the tmux on PATH. NERDR_TEST_TMUX names more tmux builds
// (`3.2a=/path/to/bin,3.7c=/path/to/bin`, as .ci/run sets it): the tmux-contract tier (CONTRACT,
// what differs between tmux versions) runs again on each of them, in the same run; the product
// flows run once.
import path from 'node:path';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import LongestFirst from './test/sequencer.js';

/** Files that flood output or events, or measure a stall or memory: two at a time, after the rest. */
const FLOODS = ['flood', 'stall', 'stall-holdup', 'adoption', 'spool', 'bounded'];
/**
 * Files that hold nerdr to a time under a load of their own: alone, after the floods. CI saw the
 * revival's 2 s missed (2,040 ms) only with a flood test beside it on the 2 cores; alone, under
 * its own burst, it took 0.8 – 1.4 s.
 */
const TIMED = ['revival'];
/** What depends on the tmux version: the control protocol, the mirror, hooks and formats. */
const CONTRACT = [
  'foundation',
  'flood',
  'stall',
  'stall-holdup',
  'adoption',
  'revival',
  'holder-hooks',
  'control-exit',
  'mirror',
  'exit-guard',
  'hostile-names',
  'status-colours',
  'status-offline',
  'status-reload',
  'identify',
  'locale',
  'message-once',
  'messages-send',
  'messages-wait',
  'messages-queue',
  'hibernate',
];
/** Unit files that mock a module (vi.mock): each in a worker of its own, the module loaded afresh. */
const UNIT_OWN_WORKER = ['test/unit/supervisor/spool-batch.test.ts'];
/** Live files that wait more than they compute run side by side, this many at once. */
const LIVE_WORKERS = 6;
/** Floods at once, across every tmux: two, one per core. */
const FLOOD_WORKERS = 2;

const files = (names: string[]): string[] => names.map((n) => `test/live/${n}.test.ts`);

const shared = { testTimeout: 30_000, hookTimeout: 30_000, pool: 'forks' as const };

/**
 * The live tiers for one tmux (its bin folder first on PATH), or the one on PATH. `nth` orders the
 * timed tiers: each tmux's in a group of its own, so that no two run at once.
 */
function liveProjects(version: string | null, bin: string | null, nth = 0): TestProjectInlineConfiguration[] {
  const suffix = version ? `@${version}` : '';
  const env = bin ? { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } : {};
  return [
    {
      test: {
        ...shared,
        name: `live${suffix}`,
        include: version ? files(CONTRACT.filter((n) => !FLOODS.includes(n) && !TIMED.includes(n))) : ['test/live/**/*.test.ts'],
        exclude: files([...FLOODS, ...TIMED]),
        env,
        maxWorkers: LIVE_WORKERS,
        sequence: { groupOrder: 1 },
      },
    },
    {
      test: {
        ...shared,
        name: `floods${suffix}`,
        include: files(version ? FLOODS.filter((n) => CONTRACT.includes(n)) : FLOODS),
        env,
        maxWorkers: FLOOD_WORKERS,
        sequence: { groupOrder: 2 },
      },
    },
    {
      test: {
        ...shared,
        name: `timed${suffix}`,
        include: files(version ? TIMED.filter((n) => CONTRACT.includes(n)) : TIMED),
        env,
        maxWorkers: 1,
        sequence: { groupOrder: 3 + nth },
      },
    },
  ];
}

/** `3.2a=/bin/dir,3.7c=/bin/dir` → [[version, bin]]. */
function extraTmux(spec: string | undefined): [string, string][] {
  if (!spec) return [];
  return spec
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`NERDR_TEST_TMUX: "${pair}" is not VERSION=BIN_DIR (e.g. 3.2a=$HOME/.cache/nerdr-tmux/3.2a/bin)`);
      return [pair.slice(0, at), pair.slice(at + 1)] as [string, string];
    });
}

const extra = extraTmux(process.env.NERDR_TEST_TMUX);

export default defineConfig({
  test: {
    // the tiers' table and failures at the end (test/tiers-reporter.ts)
    reporters: ['default', './test/tiers-reporter.ts'],
    // each group's longest files first, across the tmux builds (test/sequencer.ts)
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: UNIT_OWN_WORKER,
          // files share a worker and its loaded modules: a third of the tier's time was each file
          // loading src again; test/unit/shared-worker.ts gives the process back after each file
          isolate: false,
          setupFiles: ['test/unit/shared-worker.ts'],
          // three on 2 cores: with two, a quarter of the CPU sat idle (files that wait on real
          // processes: the type check, lock races, real sockets): 69 -> 56 s
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'unit-own',
          include: UNIT_OWN_WORKER,
          // as many as the unit tier's: a project of one worker would run after every other tier
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      ...liveProjects(null, null),
      ...extra.flatMap(([version, bin], i) => liveProjects(version, bin, i + 1)),
    ],
  },
});
