// `nerdr selftest <agent>`: the user's own installed agent, driven through one turn in a private
// tmux server with a scratch HOME, against a fake model server on 127.0.0.1, and what nerdr
// showed at each phase beside what it should have shown (docs/selftest.md).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findRequest, type FakeServer } from './fake/common.js';
import { PROFILES } from './profiles.js';
import { AgentRun, until, type Row, type Screen } from './session.js';

/** What one phase expects nerdr to show, and how it is reached. */
export interface PhaseResult {
  phase: string;
  /** The light nerdr should show. */
  expected: string;
  /** What nerdr showed when the phase ended (null: no row for the window). */
  shown: string | null;
  outcome: 'right' | 'wrong' | 'not reached';
  /** Why it is wrong or not reached. */
  note?: string;
  /** The screen file of this phase (plain text), under the run's screens folder. */
  screen?: string;
  /** `nerdr explain` of the window, for a phase that is wrong. */
  explain?: string;
  /** The screen text, for a phase that is wrong. */
  screenText?: string;
}

export interface SelftestReport {
  agent: string;
  version: string | null;
  command: string;
  /** Proven by nerdr's own suite (src/integrations `proven`). */
  proven: boolean;
  ok: boolean;
  /** Why the agent could not be driven at all (then phases is empty or partial). */
  problem?: string;
  phases: PhaseResult[];
  /** Where the screens (and explain texts of misses) were saved. */
  screensDir: string;
  /** Notes: what nerdr launched, cleanup remarks. */
  notes: string[];
  /** The scratch folder (HOME, project, state), when kept. */
  runDir?: string;
}

export interface SelftestOptions {
  agent: string;
  version: string | null;
  command: string;
  proven: boolean;
  /** PATH of the private tmux server: where the user's agent and tmux are. */
  path: string;
  /** The run's screens go in here (made if missing). */
  screensDir: string;
  /** Keep the scratch HOME/project/state folder instead of removing it. */
  keep?: boolean;
  /** One line per phase as it ends (progress). */
  progress?: (line: string) => void;
  /** Milliseconds the agent has to show its prompt at startup. */
  startupMs?: number;
}

const TURN_MS = 45_000;

/**
 * Drives one agent: working, a permission prompt, approve, done, a denied prompt with Esc (for an
 * agent without permission prompts: a command it runs unasked, and an interrupted turn).
 * Everything it started is ended before it returns, whatever happened.
 */
export async function selftest(o: SelftestOptions): Promise<SelftestReport> {
  const profile = PROFILES[o.agent];
  const report: SelftestReport = { agent: o.agent, version: o.version, command: o.command, proven: o.proven, ok: false, phases: [], screensDir: o.screensDir, notes: [] };
  if (!profile) {
    report.problem = `nerdr cannot drive ${o.agent} against a local model server`;
    return report;
  }
  mkdirSync(o.screensDir, { recursive: true, mode: 0o700 });
  const runsDir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-selftest-'));
  let server: FakeServer | undefined;
  let run: AgentRun | undefined;
  const progress = o.progress ?? (() => undefined);
  // Ctrl+C (or a kill) while it runs: what it started is ended first, then the exit (130 / 143)
  const onSignal = (signal: NodeJS.Signals): void => {
    progress(`${signal}: ending the private tmux server, the agent and the model server`);
    void (async () => {
      await run?.cleanup().catch(() => undefined);
      await server?.close().catch(() => undefined);
      if (!o.keep) rmSync(runsDir, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143); // 128 + the signal's number, as a shell reports it
    })();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    server = await profile.startServer({});
    run = new AgentRun({
      ...profile.runOptions(server, undefined),
      runsDir,
      screensDir: o.screensDir,
      path: o.path,
      offline: true,
      socketPrefix: 'nerdr-selftest',
    });
    server.logFile = path.join(run.dir, 'model-requests.jsonl');
    const agent = run;
    const srv = server;
    progress(`starting ${o.agent} in a private tmux server (-L ${agent.socketName}), model at ${srv.url}`);
    await agent.start();
    report.notes.push(`nerdr launched: ${JSON.stringify(await agent.launchedArgv())}`);

    // startup dialogs the profile knows, answered; then the prompt
    const startupMs = o.startupMs ?? 150_000;
    const ready = await agent.untilReady(profile.startupDialogs, profile.readyText, startupMs, (re) => report.notes.push(`startup dialog answered: ${re.source}`));
    if (!ready) {
      const s = await agent.capture();
      agent.save('startup-failed', s);
      report.problem = `${o.agent} did not show its prompt within ${Math.round(startupMs / 1000)} s (it may need a login or a setup step nerdr cannot fake offline); its screen is in ${path.join(o.screensDir, 'startup-failed.txt')}`;
      report.phases.push({ phase: 'startup', expected: 'its prompt', shown: null, outcome: 'wrong', note: report.problem, screenText: s.plain, explain: await agent.explain() });
      return report;
    }

    /** Waits for one of `states` (and `also`), saves the screen, and records the phase. */
    const expect = async (phase: string, file: string, states: string[], timeoutMs: number, also?: () => boolean | Promise<boolean>): Promise<boolean> => {
      let last: Row | undefined;
      const hit = await until(async () => {
        last = await agent.row().catch(() => undefined);
        if (!last || !states.includes(last.state)) return undefined;
        return !also || (await also()) ? last : undefined;
      }, timeoutMs, 100);
      const screen: Screen = await agent.capture();
      agent.save(file, screen);
      const result: PhaseResult = { phase, expected: states.join(' or '), shown: hit?.state ?? last?.state ?? null, outcome: hit ? 'right' : 'wrong', screen: path.join(o.screensDir, `${file}.txt`) };
      if (!hit) {
        result.note = `nerdr showed ${last?.state ?? 'nothing (no row for the window)'} for ${Math.round(timeoutMs / 1000)} s`;
        result.explain = await agent.explain();
        result.screenText = screen.plain;
        writeFileSync(path.join(o.screensDir, `${file}.explain.txt`), result.explain + '\n');
      }
      report.phases.push(result);
      progress(`${hit ? '✓' : '✗'} ${phase}: ${result.shown ?? 'nothing'}${hit ? '' : ` (should be ${result.expected})`}`);
      return hit !== undefined;
    };
    const notReached = (phase: string, expected: string, because: string): void => {
      report.phases.push({ phase, expected, shown: null, outcome: 'not reached', note: `not reached: ${because}` });
      progress(`- ${phase}: not reached (${because})`);
    };
    /** Back at rest before a prompt: a dialog left by a wrong phase is dismissed with the deny keys. */
    const settle = (): Promise<void> => agent.settle(profile.denyKeys);

    await expect('idle at startup', 'startup-idle', ['idle'], 20_000);

    // one turn that streams: working while it does, done at its end
    await settle();
    let t = Date.now();
    await agent.prompt('Please answer SLOW');
    await until(async () => findRequest(srv, 'slow', t), TURN_MS, 200);
    const working = await expect('working while the model answers', 'working', ['working'], 10_000, () => findRequest(srv, 'slow', t, true) !== undefined);
    await until(async () => (findRequest(srv, 'slow', t) && !findRequest(srv, 'slow', t, true) ? true : undefined), TURN_MS, 200);
    if (working || findRequest(srv, 'slow', t)) await expect('done at the end of the turn', 'done', ['done'], 20_000);
    else notReached('done at the end of the turn', 'done', 'no answer was asked of the model');

    if (profile.noPermissionPrompt) {
      // an agent that asks before nothing: a command it runs unasked (working, then done), and a
      // turn stopped with its interrupt keys (idle: a key press is not a completion)
      report.notes.push(`no permission prompt to drive: ${profile.noPermissionPrompt}`);
      await settle();
      t = Date.now();
      await agent.prompt('Please RUN_BASH now');
      await until(async () => findRequest(srv, 'bash', t), TURN_MS, 200);
      await expect('working while it runs a command unasked', 'working-command', ['working'], 10_000);
      await until(async () => (findRequest(srv, 'after-tool', t) ? true : undefined), 20_000, 200);
      if (!agent.file('harness-was-here.txt')) report.notes.push('the command did not run (no harness-was-here.txt in the project)');
      await expect('done after the command', 'done-after-command', ['done'], TURN_MS);
      await settle();
      t = Date.now();
      await agent.prompt('SLOW answer please, to be interrupted');
      const streaming = await until(async () => ((findRequest(srv, 'slow', t, true)?.events ?? 0) > 8 ? true : undefined), TURN_MS, 100);
      if (streaming) {
        await agent.keysStepwise(profile.interruptKeys);
        await expect(`idle after a turn interrupted with ${profile.interruptKeys.join(' ')}`, 'after-interrupt', ['idle'], 15_000);
      } else notReached(`idle after a turn interrupted with ${profile.interruptKeys.join(' ')}`, 'idle', 'the model\'s answer did not start streaming');
      report.ok = report.phases.every((p) => p.outcome === 'right');
      return report;
    }

    // a command that needs permission: blocked, approved (working), done
    await settle();
    t = Date.now();
    await agent.prompt('Please RUN_BASH now');
    const blocked = await expect('blocked at a permission prompt', 'permission', ['blocked'], 20_000, () => agent.dialogOnScreen());
    if (blocked) {
      await agent.keys(...profile.approveKeys);
      await expect('working after approval', 'working-after-approval', ['working'], 10_000);
      await until(async () => (findRequest(srv, 'after-tool', t) ? true : undefined), 20_000, 200);
      if (!agent.file('harness-was-here.txt')) report.notes.push('the approved command did not run (no harness-was-here.txt in the project)');
      await expect('done after the approved command', 'done-after-approval', ['done'], TURN_MS);
    } else {
      notReached('working after approval', 'working', 'no permission prompt to approve');
      notReached('done after the approved command', 'done', 'no permission prompt to approve');
    }

    // the same prompt denied with Esc: a key press is not a completion, so idle
    await settle();
    await agent.prompt('RUN_BASH again please');
    const again = await expect('blocked at the permission prompt again', 'permission-again', ['blocked'], 20_000, () => agent.dialogOnScreen());
    if (again) {
      await agent.keysStepwise(profile.denyKeys);
      await expect('idle after the prompt is denied with Esc', 'after-deny', ['idle'], 15_000);
    } else notReached('idle after the prompt is denied with Esc', 'idle', 'no permission prompt to deny');

    report.ok = report.phases.every((p) => p.outcome === 'right');
    return report;
  } catch (err) {
    report.problem = `the run stopped: ${(err as Error).message.split('\n')[0]}`;
    return report;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (run) report.notes.push(...(await run.cleanup().catch((e: Error) => [`cleanup: ${e.message}`])));
    if (run && server) writeFileSync(path.join(run.dir, 'model-requests.json'), JSON.stringify(server.requests, null, 1));
    await server?.close().catch(() => undefined);
    writeFileSync(path.join(o.screensDir, 'result.json'), JSON.stringify({ ...report, date: new Date().toISOString() }, null, 2) + '\n');
    if (o.keep) report.runDir = runsDir;
    else rmSync(runsDir, { recursive: true, force: true });
  }
}
