// Usage limits with a real agent (docs/lifecycle.md): the fake model server answers as the
// real service does once the plan is exhausted (USAGE_LIMIT, src/selftest/fake/common.ts), the
// agent shows its own words for it, and nerdr says `limited` with the reset the agent named:
// in `ls --json`, `explain`, `wait --until limited`, the light. With `[agents] on_limit =
// "resume"` nerdr types "continue" once the reset passed, and the agent's next turn is answered.
// The reset is a minute or two away (the agents show minutes). One agent run of its own per
// agent, beside the main scenario (Claude needs a claude.ai login for these words: its OAuth
// token, pointed at the fake server).
// Results: test/agents/results/usage-limit/<agent>[@<version>].json; screens under
// test/agents/screens/usage-limit/.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentProfile } from './agents.js';
import { humanText, type FakeServer } from '../../src/selftest/fake/common.js';
import { OFFLINE_ENV } from '../../src/selftest/session.js';
import { AgentRun, until } from './harness.js';
import { nerdrCommit } from './product.js';
import { RESULTS_DIR, runName, SCREENS_DIR } from './versions.js';

const STARTUP_MS = 150_000;
const TURN_MS = 45_000;
/** The plan resets at least this long after the limit (rounded up to a whole minute by the fake). */
const RESET_AFTER_MS = 45_000;

export interface LimitOptions {
  /** The launch's environment changed for a login whose limits the agent words (Claude: OAuth). */
  env?: (env: Record<string, string>) => Record<string, string>;
  /** nerdr's config.toml of the run, before `[agents] on_limit = "resume"`. */
  nerdrConfig?: string;
  /** Where nerdr hears of the limit first: the agent's hook (Claude's StopFailure) or its screen. */
  from: 'hook' | 'screen';
}

/** The human text of a request's latest user message (Anthropic messages or OpenAI input). */
function promptOf(body: unknown): string {
  const b = (body ?? {}) as { messages?: { role: string; content: unknown }[]; input?: { role?: string; content?: unknown }[] };
  const items = [...(b.messages ?? []), ...(Array.isArray(b.input) ? b.input : [])].filter((m) => m.role === 'user');
  const last = items.at(-1)?.content;
  const parts = typeof last === 'string' ? [last] : Array.isArray(last) ? last.map((c: { text?: string }) => c.text ?? '') : [];
  return parts.map((t) => humanText(t)).join('\n');
}

/** The request's latest prompt ends in "continue" (Claude sends the refused prompt with it, in one message). */
const typedContinue = (body: unknown): boolean => /(^|\n)continue$/.test(promptOf(body).trim());

export function limitConformance(profile: AgentProfile, o: LimitOptions): void {
  const install = inject('agentInstall')[profile.agent];
  const problem = inject('nerdrProblem');
  const skip = problem || (!install ? 'not in the install report' : !install.ok ? (install.reason ?? 'not installed') : '');
  const name = runName(profile.agent, install?.version ?? '', install?.pinned !== false);

  describe.skipIf(!!skip)(`${profile.agent} ${install?.version ?? ''} at its usage limit under nerdr`, () => {
    const results: { phase: string; outcome: 'pass' | 'fail'; note?: string }[] = [];
    let server: FakeServer;
    let agent: AgentRun;

    beforeAll(async () => {
      rmSync(path.join(SCREENS_DIR, 'usage-limit', name), { recursive: true, force: true });
      server = await profile.startServer({ timing: { limitResetMs: RESET_AFTER_MS } });
      const opts = profile.runOptions(server, install!.binDir);
      const env = { ...OFFLINE_ENV, ...(o.env ? o.env(opts.env ?? {}) : opts.env) };
      const nerdrConfig = `${o.nerdrConfig ?? opts.nerdrConfig ?? ''}\n[agents]\non_limit = "resume"\n`;
      agent = new AgentRun({ ...opts, env, nerdrConfig, binDir: install!.binDir, screens: path.join('usage-limit', name) });
      server.logFile = path.join(agent.dir, 'model-requests.jsonl');
      await agent.start();
      const ready = await agent.untilReady(profile.startupDialogs, profile.readyText, STARTUP_MS, () => undefined);
      if (!ready) throw new Error(`${profile.agent} did not reach its prompt\n${(await agent.capture()).plain}`);
    }, STARTUP_MS + 30_000);

    afterAll(async () => {
      if (agent) writeFileSync(path.join(agent.dir, 'supervisor.log'), agent.supervisorLog());
      await agent?.cleanup();
      await server?.close();
      mkdirSync(path.join(RESULTS_DIR, 'usage-limit'), { recursive: true });
      writeFileSync(
        path.join(RESULTS_DIR, 'usage-limit', `${name}.json`),
        JSON.stringify({ agent: profile.agent, version: install?.version, date: new Date().toISOString(), nerdr: nerdrCommit(), results }, null, 2) + '\n',
      );
    });

    const phase = (title: string, fn: () => Promise<void>, timeoutMs: number): void => {
      it(title, async () => {
        try {
          await fn();
        } catch (err) {
          results.push({ phase: title, outcome: 'fail', note: String((err as Error).message).split('\n')[0] });
          throw err;
        }
        results.push({ phase: title, outcome: 'pass' });
      }, timeoutMs);
    };

    let resetAt = 0;

    phase('the plan is exhausted: limited, with the reset the agent shows', async () => {
      await agent.prompt('Please USAGE_LIMIT now');
      // the state, and the agent's own words on screen (a hook may tell before the screen shows them)
      const row = await agent.expectState('limited', ['limited'], TURN_MS, (_r, screen) => /You['’]ve hit your/.test(screen.plain));
      resetAt = server.exhaustedUntil ?? 0;
      expect(resetAt, 'the fake server exhausted the plan').toBeGreaterThan(0);
      const limit = row['limit'] as { words: string; resetAt: number | null } | null;
      // the agent shows the reset to the minute, and the fake resets on a whole minute
      expect(limit?.resetAt, `${JSON.stringify(limit)}\n${await agent.explain()}`).toBe(resetAt);
      expect(limit?.words).toMatch(/You['’]ve hit your/);
      const explain = await agent.explain();
      expect(explain).toMatch(/usage limit: "You['’]ve hit your/);
      expect(explain).toContain(o.from === 'hook' ? "(from the agent's hook)" : '(from the screen)');
      expect(explain).toMatch(/timer: limit-reset/);
      const waited = await agent.nerdr('wait', agent.pane, '--until', 'limited', '--timeout', '5');
      expect(waited.code, waited.stderr).toBe(0);
      // the light follows within a lights flush (at most every 250 ms, docs/performance.md)
      const lightState = async () => (await agent.tmux('show-options', '-w', '-v', '-t', agent.pane, '@nerdr_state')).stdout.trim();
      expect(await until(async () => ((await lightState()) === 'limited' ? true : undefined), 5000), `the light: ${await lightState()}`).toBe(true);
    }, TURN_MS + 30_000);

    phase('still limited until the reset, whatever the agent draws meanwhile (Claude opens its own dialog about the limit)', async () => {
      expect(resetAt).toBeGreaterThan(0);
      // a while after the limit, before the reset: what the agent shows by then is part of it
      const at = Math.min(Date.now() + 8000, resetAt - 3000);
      await until(async () => (Date.now() >= at ? true : undefined), Math.max(0, at - Date.now()) + 1000, 250);
      const row = await agent.row();
      const screen = await agent.capture();
      agent.save('limited-before-reset', screen);
      expect(row?.state, `${screen.plain}\n${await agent.explain()}`).toBe('limited');
      expect(server.requests.filter((x) => typedContinue(x.body)).length, 'nothing typed before the reset').toBe(0);
    }, TURN_MS);

    phase('on_limit = "resume": once the reset passed nerdr types "continue", and the agent works again', async () => {
      expect(resetAt).toBeGreaterThan(0);
      const turn = await until(async () => {
        const r = server.requests.find((x) => x.at >= resetAt && typedContinue(x.body) && x.script !== 'title');
        return r;
      }, resetAt - Date.now() + TURN_MS, 250);
      expect(turn, `no request with "continue" after the reset\n${(await agent.capture()).plain}\n${await agent.explain()}`).toBeTruthy();
      await agent.expectState('resumed', ['done', 'idle'], TURN_MS);
      // typed once
      expect(server.requests.filter((x) => typedContinue(x.body) && x.script !== 'title').length).toBe(1);
    }, 4 * 60_000);
  });
}
