// The conformance scenario every agent goes through: one agent under `nerdr new`, one fake
// model server, a sequence of turns driven with send-keys, and nerdr's state checked at each
// phase. Each phase is a test; the phases share the agent and run in order.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, inject, it, type TestContext } from 'vitest';
import type { AgentProfile } from './agents.js';
import { findRequest, type FakeServer, type LoggedRequest, type Script } from '../../src/selftest/fake/common.js';
import { AgentRun, until, type Row } from './harness.js';
import { hasCommand, hasLaunchWiring, hasSeenRule, nerdrCommit } from './product.js';
import { AGENT_PACKAGES, REPO_ROOT, RESULTS_DIR, runName, SCREENS_DIR } from './versions.js';

export type Outcome = 'pass' | 'fail' | 'pending' | 'n/a';

interface PhaseResult {
  phase: string;
  outcome: Outcome;
  note?: string;
}

export interface ScenarioOptions {
  /** The agent's own conversation id, from what it sent the fake server (or left in its HOME). */
  ownConversationId(requests: LoggedRequest[], run: AgentRun): string | null;
}

// opencode npm-installs @opencode-ai/plugin into nerdr's plugin folder at its first start
const STARTUP_MS = 150_000;
const TURN_MS = 45_000;

/** The resident memory (kB) of a process and its descendants, from /proc. */
async function treeKb(root: string | number): Promise<number> {
  const { readdirSync, readFileSync: read } = await import('node:fs');
  const stats = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).flatMap((n) => {
    try {
      const s = read(`/proc/${n}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      return [{ pid: Number(n), ppid: Number(f[1]), rssKb: (Number(f[21]) || 0) * 4 }];
    } catch {
      return [];
    }
  });
  const seen = new Set([Number(root)]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of stats) if (!seen.has(p.pid) && seen.has(p.ppid)) (seen.add(p.pid), (grew = true));
  }
  return stats.filter((p) => seen.has(p.pid)).reduce((n, p) => n + p.rssKb, 0);
}

export function conformance(profile: AgentProfile, options: ScenarioOptions): void {
  const install = inject('agentInstall')[profile.agent];
  const problem = inject('nerdrProblem');
  const skipReason = problem || (install && !install.ok ? install.reason : '') || (!install ? 'not in the install report' : '');
  const version = install?.version || AGENT_PACKAGES.find((p) => p.agent === profile.agent)?.version || '';
  // results and screens of the pinned version as before; another version's beside them
  const name = runName(profile.agent, version, install?.pinned !== false);

  if (skipReason) {
    describe(`${profile.agent} (real CLI)`, () => {
      it.skip(`skipped: ${skipReason}`, () => undefined);
    });
    return;
  }

  describe(`${profile.agent} ${version} under nerdr`, () => {
    let server: FakeServer;
    let agent: AgentRun;
    let started = false;
    const results: PhaseResult[] = [];
    const notes: string[] = [];

    /** One phase: a test whose outcome is recorded for docs/conformance.md. */
    const phase = (name: string, fn: (ctx: TestContext, pending: (reason: string) => never) => Promise<void>): void => {
      it(name, async (ctx) => {
        if (!started) {
          results.push({ phase: name, outcome: 'fail', note: 'the agent did not start' });
          throw new Error(`${profile.agent} did not start; see the first failure`);
        }
        const na = profile.notApplicable[name];
        if (na) {
          results.push({ phase: name, outcome: 'n/a', note: na });
          ctx.skip(`n/a: ${na}`);
        }
        const pending = (reason: string): never => {
          results.push({ phase: name, outcome: 'pending', note: reason });
          return ctx.skip(`pending: ${reason}`);
        };
        try {
          await fn(ctx, pending);
        } catch (err) {
          if (results.some((r) => r.phase === name)) throw err; // pending / n/a (ctx.skip throws)
          results.push({ phase: name, outcome: 'fail', note: String((err as Error).message).split('\n')[0] });
          throw err;
        }
        if (!results.some((r) => r.phase === name)) results.push({ phase: name, outcome: 'pass' });
      });
    };

    /**
     * The interrupt keys stopped the model's answer: the agent closed the stream before its end. A
     * turn they did not stop ends done, rightly; that is the keys' failure, not nerdr's.
     */
    const interrupted = async (script: Script, since: number): Promise<void> => {
      const r = await until(async () => {
        const x = findRequest(server, script, since);
        return x && x.endedAt !== undefined ? x : undefined;
      }, 10_000, 100);
      if (r && !r.aborted) throw new Error(`the interrupt keys (${profile.interruptKeys.join(' ')}) did not stop the turn: the model's answer was sent to its end`);
    };

    /** Before a phase: the agent back at rest (a dialog left by a failed phase is dismissed). */
    const settle = (): Promise<void> => agent.settle(profile.denyKeys, profile.readyText);

    beforeAll(async () => {
      // the committed screens are those of the latest run
      rmSync(path.join(SCREENS_DIR, name), { recursive: true, force: true });
      server = await profile.startServer({});
      agent = new AgentRun({ ...profile.runOptions(server, install?.binDir), ...(install?.binDir ? { binDir: install.binDir } : {}), screens: name });
      server.logFile = path.join(agent.dir, 'model-requests.jsonl');
      await agent.start();
      const argv = await agent.launchedArgv();
      notes.push(`nerdr launched: ${JSON.stringify(argv)}`);
      // Startup dialogs (e.g. Codex asking to trust nerdr's hooks): answered once, recorded.
      const ready = await agent.untilReady(profile.startupDialogs, profile.readyText, STARTUP_MS, (re) => notes.push(`startup dialog answered: ${re.source}`));
      if (!ready) {
        const s = await agent.capture();
        agent.save('startup-failed', s);
        results.push({ phase: 'startup', outcome: 'fail', note: `no prompt within ${STARTUP_MS} ms (screen in screens/${profile.agent}/startup-failed.txt)` });
        throw new Error(`${profile.agent} did not reach its prompt within ${STARTUP_MS} ms\n---- screen ----\n${s.plain}\n---- explain ----\n${await agent.explain()}`);
      }
      started = true;
    }, STARTUP_MS + 30_000);

    afterAll(async () => {
      const cleanupNotes = agent ? await agent.cleanup() : [];
      notes.push(...cleanupNotes);
      if (agent) {
        writeFileSync(path.join(agent.dir, 'model-requests.json'), JSON.stringify(server?.requests ?? [], null, 1));
        writeFileSync(path.join(agent.dir, 'supervisor.log'), agent.supervisorLog());
      }
      await server?.close();
      mkdirSync(RESULTS_DIR, { recursive: true });
      const out = {
        agent: profile.agent,
        version,
        pinned: install?.pinned !== false,
        date: new Date().toISOString(),
        nerdr: nerdrCommit(),
        hookWiring: hasLaunchWiring(),
        results,
        notes,
      };
      writeFileSync(path.join(RESULTS_DIR, `${name}.json`), JSON.stringify(out, null, 2) + '\n');
      process.stderr.write(
        `\n[agents] ${profile.agent} ${version}: ` +
          results.map((r) => `${r.phase}=${r.outcome}`).join(', ') +
          (notes.length ? `\n[agents] notes: ${notes.join(' | ')}` : '') +
          `\n[agents] run folder: ${agent?.dir}\n`,
      );
    }, 60_000);

    phase('idle at startup', async () => {
      await agent.expectState('startup-idle', ['idle'], 20_000);
    });

    phase('working while the model streams', async () => {
      await settle();
      const t = Date.now();
      await agent.prompt('Please answer SLOW');
      // opencode takes ~20 s before the first request of a session: wait for the stream to start
      await until(async () => findRequest(server, 'slow', t), STARTUP_MS, 200);
      await agent.expectState('working-streaming', ['working'], 10_000, () => findRequest(server, 'slow', t, true) !== undefined);
      // still working half-way through the stream
      const half = server.timing.slowChunks / 2;
      const r = await until(async () => findRequest(server, 'slow', t, true)?.events !== undefined && (findRequest(server, 'slow', t, true)!.events ?? 0) > half ? true : undefined, 30_000, 200);
      if (r) await agent.expectState('working-mid-stream', ['working'], 3000, () => findRequest(server, 'slow', t, true) !== undefined);
    });

    phase('done at the end of the turn', async () => {
      const t = Date.now() - 60_000;
      await until(async () => (findRequest(server, 'slow', t) && !findRequest(server, 'slow', t, true) ? true : undefined), TURN_MS, 200);
      await agent.expectState('done', ['done'], 20_000);
    });

    phase('idle after the window is viewed', async (_ctx, pending) => {
      const seenRule = hasSeenRule();
      await agent.attach();
      await agent.tmux('select-window', '-t', `work:${agent.window}`);
      try {
        await agent.expectState('seen-idle', ['idle'], 8000);
      } catch (err) {
        if (!seenRule) pending('the seen rule is not wired: src/supervisor never calls arbiter.seen() when a client views the window, so done stays done');
        throw err;
      } finally {
        await agent.detach();
      }
    });

    phase('blocked at the permission prompt', async () => {
      await settle();
      await agent.prompt('Please RUN_BASH now');
      await agent.expectState('permission', ['blocked'], 20_000, () => agent.dialogOnScreen());
    });

    /**
     * The dialog on the agent's screen answered as a person answers it from anywhere: its row in
     * `nerdr inbox` (the dialog read from the screen), then `nerdr answer … --prompt ID`.
     */
    const answerFromInbox = async (choice: 'approve' | 'deny'): Promise<void> => {
      const ls = JSON.parse((await agent.nerdr('ls', '--json')).stdout) as { pane: string; window: string }[];
      const window = ls.find((r) => r.pane === agent.pane)?.window;
      const row = await until(async () => {
        const r = await agent.nerdr('inbox', '--json');
        const rows = (JSON.parse(r.stdout || '{"rows":[]}') as { rows: { id: string; kind: string; window: string; answerable: boolean; dialog: { text: string; options: { n: number; label: string; kind: string }[] } | null }[] }).rows;
        return rows.find((x) => x.kind === 'blocked' && x.window === window);
      }, 10_000, 200);
      if (!row) throw new Error(`the blocked prompt of ${window} is not in \`nerdr inbox\``);
      if (!row.dialog || !row.answerable) throw new Error(`nerdr inbox cannot read or answer the dialog of ${profile.agent}: ${JSON.stringify(row)}`);
      notes.push(`inbox read the dialog (${choice}): ${JSON.stringify({ text: row.dialog.text, options: row.dialog.options.map((o) => `${o.n}. ${o.label} (${o.kind})`) })}`);
      const r = await agent.nerdr('answer', agent.pane, choice, '--prompt', row.id, '--json');
      if (r.code !== 0) throw new Error(`nerdr answer ${choice} failed: ${r.stderr}`);
      notes.push(`nerdr answer ${choice} typed ${JSON.stringify((JSON.parse(r.stdout) as { keys: string[] }).keys)}`);
    };

    phase('working after approval', async () => {
      const t = Date.now();
      await answerFromInbox('approve');
      await agent.expectState('working-after-approval', ['working'], 10_000);
      await until(async () => (findRequest(server, 'after-tool', t) ? true : undefined), 20_000, 200);
      if (!agent.file('harness-was-here.txt')) throw new Error('the approved command did not run (no harness-was-here.txt)');
    });

    phase('done after the approved command', async () => {
      await agent.expectState('done-after-approval', ['done'], TURN_MS);
    });

    phase('blocked at a question', async () => {
      await settle();
      await agent.prompt('ASK_QUESTION please');
      // not every manifest sees a question dialog (opencode's): the hook's blocked is the answer here
      await agent.expectState('question', ['blocked'], 20_000);
    });

    phase('working after the answer, then done', async () => {
      await agent.keysStepwise(profile.answerKeys);
      await agent.expectState('working-after-answer', ['working'], 10_000);
      await agent.expectState('done-after-answer', ['done'], TURN_MS);
    });

    phase('idle after a permission denied with Esc', async () => {
      await settle();
      await agent.prompt('RUN_BASH again please');
      await agent.expectState('permission-before-deny', ['blocked'], 20_000, () => agent.dialogOnScreen());
      await answerFromInbox('deny');
      // the state rules: a key press is not a completion, so idle (not done)
      await agent.expectState('after-deny', ['idle'], 15_000);
    });

    phase('idle after a turn interrupted while streaming', async () => {
      await settle();
      const t = Date.now();
      await agent.prompt('SLOW answer please, to be interrupted');
      // some text is on screen: a few chunks of the answer have been streamed
      await until(async () => ((findRequest(server, 'slow', t, true)?.events ?? 0) > 8 ? true : undefined), STARTUP_MS, 100);
      await agent.expectState('working-before-interrupt', ['working'], 10_000, () => findRequest(server, 'slow', t, true) !== undefined);
      await agent.keysStepwise(profile.interruptKeys);
      await interrupted('slow', t);
      await agent.expectState('after-interrupt', ['idle'], 15_000);
    });

    phase('idle after a turn interrupted before its first token', async () => {
      await settle();
      const t = Date.now();
      await agent.prompt('SLOW_START please, to be interrupted at once');
      await until(async () => findRequest(server, 'slow-start', t, true), STARTUP_MS, 100);
      await agent.expectState('working-before-first-token', ['working'], 10_000, () => findRequest(server, 'slow-start', t, true) !== undefined);
      await agent.keysStepwise(profile.interruptKeys);
      await interrupted('slow-start', t);
      await agent.expectState('after-interrupt-before-first-token', ['idle'], 15_000);
      // Claude puts the prompt back into the input box: clear it, or the next phase would send it
      const after = await agent.capture();
      if (/^\s*[❯›┃]\s+SLOW_START please/m.test(after.plain)) await agent.keys('C-u');
    });

    phase('working while a subagent runs', async () => {
      await settle();
      const t = Date.now();
      await agent.prompt('SUBAGENT please');
      let asked = false;
      const child = await until(async () => {
        const found = findRequest(server, 'subagent-child', t, true);
        if (found || !profile.subagentAsks || asked) return found;
        // an agent that asks before its subagent tool runs: blocked (a real dialog), then approved
        if ((await agent.row())?.state === 'blocked') {
          asked = true;
          notes.push('the subagent tool asked first: blocked, approved');
          await agent.keys(...profile.approveKeys);
        }
        return undefined;
      }, 20_000, 200);
      if (!child) {
        const s = await agent.capture();
        agent.save('subagent-running', s);
        throw new Error(`no subagent request reached the fake server\n---- screen ----\n${s.plain}`);
      }
      const row: Row = await agent.expectState('subagent-running', ['working'], 8000, () => findRequest(server, 'subagent-child', t, true) !== undefined);
      if (row.subagents > 0) notes.push(`subagents counted while running: ${row.subagents}`);
      await agent.expectState('done-after-subagent', ['done'], TURN_MS);
    });

    phase('conversation id is the agent\'s own', async (_ctx, pending) => {
      const own = options.ownConversationId(server.requests, agent);
      const row = await agent.row();
      if (!row?.conversationId && !hasLaunchWiring()) {
        pending(`nerdr records no conversation id: \`nerdr new\` does not wire hooks yet (no launchPlan in dist/cli/new.js); the agent's own is ${own ?? 'unknown'}`);
      }
      if (!own) throw new Error(`the agent's own conversation id was not found in its requests; nerdr has ${row?.conversationId}`);
      if (row?.conversationId !== own) throw new Error(`nerdr recorded ${row?.conversationId ?? 'nothing'} (from ${row?.conversationFrom}), the agent uses ${own}`);
    });

    phase('the nerdr skill reaches the model', async () => {
      // the skill's description, as SKILL.md says it: the agent lists its skills to the model
      const skill = readFileSync(path.join(REPO_ROOT, 'hooks', 'skills', 'nerdr', 'SKILL.md'), 'utf8');
      const description = /^description: (.+)$/m.exec(skill)?.[1];
      if (!description) throw new Error('hooks/skills/nerdr/SKILL.md has no description line');
      const probe = description.slice(0, 60);
      const hit = server.requests.find((x) => JSON.stringify(x.body).includes(probe));
      if (!hit) throw new Error(`no request to the model mentions the nerdr skill ("${probe}…"): the agent did not load it`);
      notes.push(`the nerdr skill was in a request to the model (${hit.script})`);
    });

    phase('nerdr restore resumes the conversation', async (_ctx, pending) => {
      if (!hasCommand('restore')) pending('`nerdr restore` does not exist yet');
      await settle();
      const before = await agent.row();
      const own = options.ownConversationId(server.requests, agent);
      if (!before?.conversationId) throw new Error('nerdr has no conversation id to restore');
      // the tmux server goes away with the agent in it, then `nerdr restore` brings the window back
      await agent.restartServer();
      const r = await agent.nerdr('restore');
      notes.push(`nerdr restore: exit ${r.code}: ${(r.stdout + r.stderr).trim().split('\n').slice(0, 3).join(' / ')}`);
      if (r.code !== 0) throw new Error(`nerdr restore failed (${r.code}): ${r.stderr || r.stdout}`);
      const row = await until(async () => (await agent.rows().catch(() => [])).find((x) => x.agent === profile.agent), 30_000, 250);
      if (!row) throw new Error('no agent window after nerdr restore');
      agent.follow(row);
      await agent.remember();
      await agent.expectState('restored-idle', ['idle', 'done'], STARTUP_MS);
      const t = Date.now();
      await agent.prompt('Hello again after restore', profile.readyText);
      const next = await until(async () => server.requests.find((x) => x.at >= t && x.script === 'text'), TURN_MS, 200);
      if (!next) throw new Error('the restored agent sent no request for the new prompt');
      const resumed = options.ownConversationId(server.requests.filter((x) => x.at >= t), agent);
      if (resumed !== own) throw new Error(`the restored agent talks in conversation ${resumed}, not ${own}: it was not resumed`);
      await agent.expectState('restored-done', ['done'], TURN_MS);
    });

    // issue 28: hibernate frees the agent's memory; wake brings it back in the same conversation
    phase('hibernate and wake keep the conversation', async (_ctx, pending) => {
      if (!hasCommand('hibernate')) pending('`nerdr hibernate` does not exist yet');
      await settle();
      // done and not seen does not hibernate: the window is looked at as a person would
      await agent.attach();
      try {
        await agent.tmux('select-window', '-t', `work:${agent.window}`);
        await agent.expectState('seen before hibernating', ['idle'], 8000);
      } finally {
        await agent.detach();
      }
      const own = options.ownConversationId(server.requests, agent);
      const h = await agent.nerdr('hibernate', agent.pane, '--json');
      if (h.code !== 0) throw new Error(`nerdr hibernate failed (${h.code}): ${h.stderr || h.stdout}`);
      const hib = JSON.parse(h.stdout) as { conversationId: string; rssKb: number | null };
      const asleep = await agent.expectState('hibernated', ['hibernated'], 10_000);
      const tinyKb = await treeKb(Number((await agent.tmux('display', '-p', '-t', agent.pane, '#{pane_pid}')).stdout.trim()));
      // the time to an idle prompt, while `nerdr wake` goes on checking the resume for 5 s
      const t0 = Date.now();
      const waking = agent.nerdr('wake', agent.pane, '--json');
      await agent.expectState('woken-idle', ['idle', 'done'], STARTUP_MS);
      const wakeMs = Date.now() - t0;
      const w = await waking;
      if (w.code !== 0) throw new Error(`nerdr wake failed (${w.code}): ${w.stderr || w.stdout}`);
      notes.push(`hibernate: the agent's process tree held ${Math.round((hib.rssKb ?? 0) / 1024)} MB; the hibernated window's ${Math.round(tinyKb / 1024)} MB (sh + sleep); woken to an idle prompt in ${(wakeMs / 1000).toFixed(1)} s (nerdr wake returned after its 5 s resume check: ${((Date.now() - t0) / 1000).toFixed(1)} s); conversation ${asleep.conversationId}`);
      const t = Date.now();
      await agent.prompt('Hello again after waking', profile.readyText);
      const next = await until(async () => server.requests.find((x) => x.at >= t && x.script === 'text'), TURN_MS, 200);
      if (!next) throw new Error('the woken agent sent no request for the new prompt');
      const resumed = options.ownConversationId(server.requests.filter((x) => x.at >= t), agent);
      if (resumed !== own) throw new Error(`the woken agent talks in conversation ${resumed}, not ${own}: it was not resumed`);
      // the earlier turns went with the request: the conversation is intact
      if (!JSON.stringify(next.body).includes('Hello again after restore')) throw new Error('the woken agent sent the model none of the earlier turns');
      await agent.expectState('woken-done', ['done'], TURN_MS);
    });
  });
}
