// `nerdr selftest`: which agents it can drive, and its exit status from the reports.
import { describe, expect, it } from 'vitest';
import { exitStatus, NOT_OFFLINE } from '../../../src/cli/selftest.js';
import { AGENTS } from '../../../src/integrations/agents.js';
import { PROFILES } from '../../../src/selftest/profiles.js';
import type { PhaseResult, SelftestReport } from '../../../src/selftest/selftest.js';

const phase = (name: string, outcome: PhaseResult['outcome']): PhaseResult => ({ phase: name, expected: 'idle', shown: outcome === 'right' ? 'idle' : 'done', outcome });
const report = (ok: boolean, phases: PhaseResult[]): SelftestReport => ({ agent: 'claude', version: '1', command: 'claude', proven: true, ok, phases, screensDir: '/x', notes: [] });
const skipped = { agent: 'codex', ok: false as const, cannotDrive: 'not installed', phases: [] as [] };

describe('nerdr selftest', () => {
  it('every agent nerdr knows is either drivable offline or has the reason it is not', () => {
    for (const id of Object.keys(AGENTS)) {
      const drivable = id in PROFILES;
      const reason = NOT_OFFLINE[id];
      expect(drivable !== (reason !== undefined), `${id}: drivable ${drivable}, reason ${reason ?? 'none'}`).toBe(true);
    }
    for (const id of [...Object.keys(PROFILES), ...Object.keys(NOT_OFFLINE)]) expect(AGENTS[id], id).toBeDefined();
  });

  it('exit 0 when every phase is right, 1 when one is wrong or not reached, 2 when nothing could be driven', () => {
    expect(exitStatus([report(true, [phase('idle at startup', 'right')])])).toBe(0);
    expect(exitStatus([report(false, [phase('idle at startup', 'right'), phase('idle after Esc', 'wrong')])])).toBe(1);
    expect(exitStatus([report(false, [phase('blocked', 'wrong'), phase('working after approval', 'not reached')])])).toBe(1);
    // no prompt at startup (a login it needs), or a run stopped before its first phase
    expect(exitStatus([report(false, [phase('startup', 'wrong')])])).toBe(2);
    expect(exitStatus([report(false, [])])).toBe(2);
    expect(exitStatus([skipped])).toBe(2);
  });

  it('--all: skipped agents count for nothing; a wrong light outweighs an agent that could not be driven', () => {
    expect(exitStatus([skipped, report(true, [phase('idle at startup', 'right')])])).toBe(0);
    expect(exitStatus([report(true, [phase('idle at startup', 'right')]), report(false, [phase('startup', 'wrong')])])).toBe(2);
    expect(exitStatus([report(false, [phase('idle after Esc', 'wrong')]), report(false, [phase('startup', 'wrong')])])).toBe(1);
  });
});
