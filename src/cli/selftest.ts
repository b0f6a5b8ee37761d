// `nerdr selftest <agent>` / `--all`: proves the user's own installed agent offline, before its
// next UI change bites (docs/selftest.md). Exit 0: every phase right; 1: one is wrong; 2: the
// agent cannot be driven (not installed, no offline driver, no prompt without a login).

import path from 'node:path';
import type { Command } from 'commander';
import { exitFor, NerdrError } from '../errors.js';
import { AGENTS, installHint } from '../integrations/agents.js';
import { onPath } from '../integrations/plan.js';
import { stateDir, ensureStateDir } from '../paths.js';
import { printJson, table } from './print.js';
import { programVersion } from './doctor.js';
import type { SelftestReport } from '../selftest/selftest.js';

/** Why an agent nerdr knows cannot be driven against a local model server (docs/agents.md). */
export const NOT_OFFLINE: Record<string, string> = {
  cursor: 'Cursor Agent talks only to Cursor\'s own servers with a Cursor login; it has no setting for another model server',
  agy: 'the Antigravity CLI signs in with a Google account and talks only to Google\'s servers; it has no setting for another model server',
  grok: 'Grok Build installs only from x.ai and wants an xAI login at its first start; whether a custom model avoids it is not known, so nerdr has no offline driver for it',
  amp: 'Amp asks for an Amp login at startup, and its custom model endpoints are routers kept in the Amp account (HTTPS); it cannot be pointed at a local model server',
  droid: 'Factory\'s droid shows "Please login with your Factory account" at startup, even with a custom model (only `droid exec` runs without one); nerdr cannot fake that login',
  omp: 'nerdr has no offline driver for omp yet; its state comes from herdr\'s extension (docs/agents.md)',
  demo: 'the demo agent is nerdr\'s own script, not an agent CLI: `nerdr demo` shows it',
};

const EXIT_WRONG = exitFor('selftest_wrong');
const EXIT_CANNOT = exitFor('cannot_drive');

interface Target {
  agent: string;
  /** Why it cannot be driven; undefined when it can. */
  cannot?: string;
}

function target(agent: string, envPath: string): Target {
  const spec = AGENTS[agent];
  if (!spec) return { agent, cannot: `nerdr does not know an agent called "${agent}" (known: ${Object.keys(AGENTS).filter((a) => a !== 'demo').join(', ')})` };
  const offline = NOT_OFFLINE[agent];
  if (offline) return { agent, cannot: offline };
  if (!onPath(spec.command[0]!, envPath)) return { agent, cannot: `${spec.description} is not installed (no \`${spec.command[0]}\` on PATH); ${installHint(spec)}` };
  return { agent };
}

type Outcome = SelftestReport | { agent: string; ok: false; cannotDrive: string; phases: [] };

/**
 * The exit status of a selftest: 1 when a light was wrong (or a phase not reached) on an agent
 * that was driven; else 2 when a driven agent never reached its first phase (no prompt, the run
 * stopped); else 0. Agents `--all` skipped (not installed) count for nothing.
 */
export function exitStatus(reports: Outcome[]): number {
  const driven = reports.filter((r): r is SelftestReport => !('cannotDrive' in r));
  const undriven = (r: SelftestReport): boolean => !r.ok && !r.phases.some((p) => p.phase !== 'startup');
  if (driven.some((r) => !r.ok && !undriven(r))) return EXIT_WRONG;
  if (driven.length === 0 || driven.some(undriven)) return EXIT_CANNOT;
  return 0;
}

export function register(program: Command): void {
  program
    .command('selftest [agent]')
    .description('drive your installed agent offline (private tmux, scratch HOME, a fake model on 127.0.0.1) and check every light nerdr shows')
    .option('--all', 'every installed agent nerdr can drive')
    .option('--json', 'print the report as JSON')
    .option('--keep', 'keep the scratch HOME, project and state folder (its path is printed)')
    .action(async (agent: string | undefined, opts: { all?: boolean; json?: boolean; keep?: boolean }) => {
      if (!agent && !opts.all) throw new NerdrError('name the agent to test', 'nerdr selftest claude (or --all for every installed one)', { code: 'cannot_drive' });
      if (agent && opts.all) throw new NerdrError('name an agent or give --all, not both', `nerdr selftest ${agent}`, { code: 'cannot_drive' });
      const envPath = process.env.PATH ?? '';
      const { PROFILES } = await import('../selftest/profiles.js');
      const targets: Target[] = opts.all ? Object.keys(PROFILES).map((a) => target(a, envPath)) : [target(agent!, envPath)];
      if (opts.all && targets.every((t) => t.cannot)) {
        const lines = targets.map((t) => `  ${t.agent}: ${t.cannot}`).join('\n');
        throw new NerdrError(`no agent nerdr can drive is installed:\n${lines}`, 'install one (e.g. npm install -g @anthropic-ai/claude-code), then nerdr selftest --all', { code: 'cannot_drive' });
      }
      if (!opts.all && targets[0]!.cannot) throw new NerdrError(`cannot selftest ${targets[0]!.agent}: ${targets[0]!.cannot}`, undefined, { code: 'cannot_drive' });

      const { selftest } = await import('../selftest/selftest.js');
      ensureStateDir();
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
      const reports: Outcome[] = [];
      const say = (line: string): void => {
        if (!opts.json) process.stdout.write(line + '\n');
      };
      // progress goes to stderr (stdout keeps the tables, and the JSON with --json)
      const tell = (line: string): void => {
        process.stderr.write(line + '\n');
      };
      for (const t of targets) {
        if (t.cannot) {
          tell(`${t.agent}: skipped — ${t.cannot}`);
          reports.push({ agent: t.agent, ok: false, cannotDrive: t.cannot, phases: [] });
          continue;
        }
        const spec = AGENTS[t.agent]!;
        const version = await programVersion(spec.command[0]!);
        const proven = version !== null && spec.proven.includes(version);
        const screensDir = path.join(stateDir(), 'selftest', `${t.agent}@${version ?? 'unknown'}-${stamp}`);
        say(`nerdr selftest ${t.agent}: ${spec.description} ${version ?? '(version unknown)'}${proven ? ', a version nerdr\'s own suite proved' : ', a version nerdr\'s own suite has not proved: this run is the proof'}`);
        const r = await selftest({
          agent: t.agent,
          version,
          command: spec.command[0]!,
          proven,
          // the user's PATH (their agent and tmux), and this node for nerdr's hooks
          path: [envPath, path.dirname(process.execPath)].filter(Boolean).join(path.delimiter),
          screensDir,
          keep: opts.keep === true,
          progress: (line) => tell(`  ${line}`),
        });
        reports.push(r);
        if (opts.json) continue;
        say('');
        say(table(['phase', 'should be', 'nerdr showed', ''], r.phases.map((p) => [p.phase, p.expected, p.shown ?? '—', p.outcome === 'right' ? 'ok' : p.outcome === 'wrong' ? 'WRONG' : 'not reached'])).replace(/\n$/, ''));
        for (const p of r.phases.filter((x) => x.outcome === 'wrong')) {
          say(`\n---- ${p.phase}: ${p.note ?? 'wrong'} ----`);
          if (p.screenText !== undefined) say(`screen:\n${p.screenText.replace(/\n+$/, '')}`);
          if (p.explain) say(`nerdr explain:\n${p.explain}`);
        }
        if (r.problem) say(`\n${t.agent}: ${r.problem}`);
        // what nerdr launched is in result.json (and --json); the rest are worth a line
        for (const n of r.notes.filter((x) => !x.startsWith('nerdr launched:'))) say(`note: ${n}`);
        say(`screens: ${r.screensDir}${r.phases.some((p) => p.outcome === 'wrong') ? ' (attach them to a bug report: they are the evidence a new rule needs)' : ''}`);
        if (r.runDir) say(`scratch folder kept: ${r.runDir}`);
        say(r.ok ? `${t.agent}: every light was right\n` : `${t.agent}: ${r.phases.filter((p) => p.outcome !== 'right').length} of ${r.phases.length} phases wrong or not reached\n`);
      }
      if (opts.json) printJson(opts.all ? reports : reports[0]);
      process.exitCode = exitStatus(reports);
    });
}
