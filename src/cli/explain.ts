// `nerdr explain <target>`: why an agent has its state.

import type { Command } from 'commander';
import { call, noAgents } from './context.js';
import { printJson } from './print.js';
import { age, resetWhen } from '../looks.js';
import type { AgentRow } from '../protocol/index.js';
import type { ArbiterView } from '../state/index.js';
import { remote } from './remote.js';
import { visible } from '../text.js';

interface Explain extends AgentRow {
  arbiter: ArbiterView;
  detection: {
    at: number;
    state: string;
    rule: string | null;
    fallbackReason: string | null;
    blank?: boolean;
    visibleIdle: boolean;
    visibleBlocker: boolean;
    visibleWorking: boolean;
    skip: boolean;
    matches: { id: string; priority: number; state: string; region: string }[];
    disabledRules: string[];
    manifest: { source: string; path: string; version: string | null };
  } | null;
  /** Its output floods: not parsed; the screen is taken from tmux every `everyMs` (docs/mirror.md). */
  flood?: { since: number; everyMs: number } | null;
  now: number;
}

/** A short time to tenths of a second (a timer 1.2 s away), a longer one as `age` shows it. */
function within(ms: number): string {
  return ms < 10_000 ? `${(Math.max(0, ms) / 1000).toFixed(1)}s` : age(ms);
}

export function register(program: Command): void {
  program
    .command('explain <target>')
    .description('why an agent has its state: authority, hook facts, matched rule, manifest, timers')
    .option('--json', 'print JSON')
    .action(async (target: string, opts: { json?: boolean }, cmd: Command) => {
      await remote('explain', target);
      const e = await call<Explain>(cmd, 'nerdr.explain', { target }, { whenNone: () => noAgents(target) });
      if (opts.json) return printJson(e);
      const v = e.arbiter;
      const out: string[] = [];
      const reported = e.reportedAgent ? `, reported as ${e.reportedAgent}` : '';
      out.push(`${e.name} (${e.agent}${reported}, ${e.window} ${e.pane}): ${e.state}${e.stateLabel ? ` (${e.stateLabel})` : ''} for ${age(e.now - e.stateSince)}`);
      if (e.hibernated) {
        // nothing in its window is judged while it sleeps: what matters is how to wake it
        const freed = e.hibernated.rssKb === null ? '' : `, freeing ${Math.round(e.hibernated.rssKb / 1024)} MB`;
        out.push(`  hibernated by nerdr ${age(e.now - e.hibernated.since)} ago in conversation ${e.conversationId}${freed}: \`nerdr wake ${e.name}\`, or a message, resumes it (docs/lifecycle.md)`);
        process.stdout.write(visible(out.join('\n'), { lines: true }) + '\n');
        return;
      }
      out.push(`  authority: ${v.authority} — ${v.reason}`);
      if (e.title) out.push(`  title: ${e.title}`);
      if (e.displayAgent) out.push(`  shown as: ${e.displayAgent}`);
      const labels = Object.entries(e.stateLabels ?? {});
      if (labels.length) out.push(`  state labels: ${labels.map(([k, t]) => `${k}=${t}`).join(', ')}`);
      const tokens = Object.entries(e.tokens ?? {});
      if (tokens.length) out.push(`  tokens: ${tokens.map(([k, t]) => `${k}=${t}`).join(', ')}`);
      if (v.limit) {
        out.push(`  usage limit: ${JSON.stringify(v.limit.words)} (from the ${v.limit.from === 'hook' ? "agent's hook" : 'screen'})`);
        out.push(`  resets: ${v.limit.resetAt !== null ? `${resetWhen(v.limit.resetAt, e.now)}, ${new Date(v.limit.resetAt).toISOString()}` : `unknown${v.limit.resetText ? ` (nerdr cannot read ${JSON.stringify(v.limit.resetText)})` : ' (the agent named no time)'}: limited until it works again`}`);
      }
      if (v.hookPhase) out.push(`  hooks: last phase ${v.hookPhase}`);
      if (v.status) out.push(`  status file: ${v.status.status}${v.status.waitingFor ? ` (${v.status.waitingFor})` : ''} for ${age(e.now - v.status.at)}${v.status.file ? `, ${v.status.file}` : ''}`);
      if (v.subagents || v.backgroundTasks) out.push(`  running in background: ${v.subagents} subagent(s), ${v.backgroundTasks} task(s)`);
      if (v.report) out.push(`  report: ${v.report.state} from ${v.report.source} (${v.report.class})${v.report.message ? `: ${v.report.message}` : ''}`);
      if (v.conversationId) out.push(`  conversation: ${v.conversationId} (from ${v.conversationFrom})`);
      out.push(`  seen: ${v.seen ? 'yes' : 'no'}`);
      if (e.flood) out.push(`  output: floods for ${within(e.now - e.flood.since)}: not parsed, its screen taken from tmux every ${e.flood.everyMs} ms until it calms`);
      const d = e.detection;
      const q = v.quiet;
      if (q) {
        const s = `${q.idleAfterMs / 1000} s`;
        out.push(q.verdict === 'off'
          ? '  screen: no manifest knows this program, and its quiet rule is off (--idle-after 0)'
          : `  screen: no manifest knows this program; the quiet rule: idle once its output is quiet for ${s} with the cursor on an input line`);
        out.push(`  output: last changed ${within(e.now - q.changedAt)} ago; ${q.prompt !== null ? `the cursor is after ${JSON.stringify(q.prompt)}` : q.inputWhy}`);
        if (q.verdict === 'off' || q.verdict === 'unsure') out.push('  nerdr send: refused while nerdr cannot tell whether it waits for input');
      } else if (!d) out.push('  screen: not evaluated yet (no manifest for this agent, or no screen)');
      else {
        const by = d.rule ?? (d.blank ? 'nothing: the screen is blank' : `fallback (${d.fallbackReason})`);
        out.push(`  screen: ${d.state} by ${by}, ${age(e.now - d.at)} ago${d.skip ? ' (skip: state left as it was)' : ''}`);
        const flags = [d.visibleBlocker && 'visible_blocker', d.visibleIdle && 'visible_idle', d.visibleWorking && 'visible_working'].filter(Boolean);
        if (flags.length) out.push(`  visible: ${flags.join(', ')}`);
        if (d.matches.length) out.push(`  matching rules: ${d.matches.map((m) => `${m.id}(${m.state} ${m.priority})`).join(', ')}`);
        if (d.disabledRules.length) out.push(`  disabled (too slow): ${d.disabledRules.join(', ')}`);
        out.push(`  manifest: ${d.manifest.path} (${d.manifest.source}, version ${d.manifest.version ?? 'none'})`);
      }
      for (const t of v.pending) out.push(`  timer: ${t.name} in ${within(t.at - e.now)} — ${t.what}`);
      process.stdout.write(visible(out.join('\n'), { lines: true }) + '\n');
    });
}
