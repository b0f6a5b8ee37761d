// Claude Code in its "auto" permission mode, under nerdr, against the fake Anthropic server.
// Auto mode asks the server to judge each tool call (`safeguards` in the request, the verdict in
// the reply's `safeguard_results`; src/selftest/fake/anthropic.ts): the fake flags the calls of an
// AUTO_BLOCK or AUTO_ASK prompt. Two phases, on a Claude Code whose --permission-mode offers auto:
//  - a call auto mode refuses ("Blocked by auto mode"): the turn goes on (the model hears it was
//    refused and answers), so the light is working, never blocked, then done;
//  - a call it asks about (three refusals in a row make auto mode ask the user: "Auto mode needs
//    your confirmation"): blocked, and idle once refused with Esc.
// Results: test/agents/results/auto-mode/claude[@<version>].json (outside the version matrix).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { claude, claudePermissionModes } from './agents.js';
import { findRequest, type FakeServer } from '../../src/selftest/fake/common.js';
import { AgentRun, until } from './harness.js';
import { nerdrCommit } from './product.js';
import { RESULTS_DIR, runName, SCREENS_DIR } from './versions.js';

const STARTUP_MS = 150_000;
/** In auto mode the footer says "⏵⏵ auto mode on (shift+tab to cycle)" where "? for shortcuts" was. */
const READY = /\? for shortcuts|auto mode on/;
const TURN_MS = 45_000;

const install = inject('agentInstall').claude;
const problem = inject('nerdrProblem');
const skip = problem || (!install ? 'not in the install report' : !install.ok ? install.reason ?? 'not installed' : !claudePermissionModes(install.binDir).includes('auto') ? `Claude Code ${install.version} has no auto permission mode` : '');

describe.skipIf(!!skip)(`claude ${install?.version ?? ''} in auto mode under nerdr`, () => {
  const name = runName('claude', install?.version ?? '', install?.pinned !== false);
  const results: { phase: string; outcome: 'pass' | 'fail' | 'n/a'; note?: string }[] = [];
  /** Set when this version's auto mode sends no call to be judged: nothing for the fake to refuse. */
  let noVerdicts = '';
  let server: FakeServer;
  let agent: AgentRun;

  beforeAll(async () => {
    rmSync(path.join(SCREENS_DIR, 'auto-mode', name), { recursive: true, force: true });
    server = await claude.startServer({});
    const opts = claude.runOptions(server, install!.binDir);
    agent = new AgentRun({ ...opts, args: ['--permission-mode', 'auto'], binDir: install!.binDir, screens: path.join('auto-mode', name) });
    server.logFile = path.join(agent.dir, 'model-requests.jsonl');
    await agent.start();
    const ready = await agent.untilReady(claude.startupDialogs, READY, STARTUP_MS, () => undefined);
    if (!ready) throw new Error(`claude did not reach its prompt in auto mode\n${(await agent.capture()).plain}`);
  }, STARTUP_MS + 30_000);

  afterAll(async () => {
    await agent?.cleanup();
    await server?.close();
    mkdirSync(path.join(RESULTS_DIR, 'auto-mode'), { recursive: true });
    writeFileSync(
      path.join(RESULTS_DIR, 'auto-mode', `${name}.json`),
      JSON.stringify({ agent: 'claude', version: install?.version, mode: 'auto', date: new Date().toISOString(), nerdr: nerdrCommit(), results }, null, 2) + '\n',
    );
  });

  const phase = (title: string, fn: () => Promise<void>): void => {
    it(title, async (ctx) => {
      if (!noVerdicts) {
        try {
          await fn();
        } catch (err) {
          results.push({ phase: title, outcome: 'fail', note: String((err as Error).message).split('\n')[0] });
          throw err;
        }
      }
      if (noVerdicts) {
        results.push({ phase: title, outcome: 'n/a', note: noVerdicts });
        return ctx.skip(`n/a: ${noVerdicts}`);
      }
      results.push({ phase: title, outcome: 'pass' });
    }, TURN_MS * 2);
  };

  phase('a call auto mode refuses: working, never blocked, then done', async () => {
    await agent.settle(claude.denyKeys, READY);
    const t = Date.now();
    await agent.prompt('Please RUN_BASH AUTO_BLOCK now');
    const seen = new Set<string>();
    const done = await until(async () => {
      const r = await agent.row();
      if (r) seen.add(r.state);
      // done after the turn's work (the model heard of the refusal and answered)
      return r?.state === 'done' && seen.has('working') ? r : undefined;
    }, TURN_MS, 100);
    const call = findRequest(server, 'bash', t);
    expect(call, 'the call reached the fake model').toBeTruthy();
    // Claude 2.1.197's auto mode, offline, asks no one: the call runs (and the light, working then
    // done, is right); there is no verdict to give
    if (!Array.isArray((call!.body as { safeguards?: unknown }).safeguards)) {
      noVerdicts = `Claude Code ${install?.version}'s auto mode sends no call to be judged offline (no safeguards in its requests, no classifier request): it ran the command, nerdr showed ${[...seen].join(' then ')}`;
      return;
    }
    const s = await agent.capture();
    agent.save('refused', s);
    expect(s.plain, 'the screen says auto mode blocked it').toMatch(/Blocked by auto mode/);
    expect(done?.state, `states seen: ${[...seen].join(', ')}\n${s.plain}\n${await agent.explain()}`).toBe('done');
    expect(seen.has('working')).toBe(true);
    expect([...seen]).not.toContain('blocked');
  });

  phase('a call auto mode asks about: blocked, then idle after Esc', async () => {
    await agent.settle(claude.denyKeys, READY);
    await agent.prompt('Please RUN_BASH AUTO_ASK now');
    await agent.expectState('asked', ['blocked'], TURN_MS, (_row, screen) => /Auto mode needs your confirmation/.test(screen.plain));
    await agent.keysStepwise(claude.denyKeys);
    await agent.expectState('asked-refused', ['idle'], 15_000);
  });
});
