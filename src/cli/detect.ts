// `nerdr detect`: evaluate one screen with the current manifests and explain the result.
//
// --screen FILE (or "-" for stdin) holds a plain capture (`tmux capture-pane -p`). With --ansi the
// file holds escape sequences (`capture-pane -p -e`): it is rendered through @xterm/headless at
// --cols (default 120) × (number of lines) by the live mirror's terminal, and the text is rebuilt
// cell by cell as detection reads it, so colours, cursor moves, erasures and wide characters are
// applied exactly as in a watched pane.

import fs from 'node:fs';
import { NerdrError } from '../errors.js';
import { Command, Option } from 'commander';
import { Mirror } from '../mirror/mirror.js';
import { detectText, ManifestRegistry, rawScreenText, rowsToText, type Detection, type LoadedManifest } from '../detect/index.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}


async function readInput(screen: string): Promise<string> {
  if (screen === '-') {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return fs.readFileSync(screen, 'utf8');
  } catch (e) {
    throw new NerdrError(`cannot read screen file ${screen}: ${(e as Error).message}`, 'give a file that holds a captured screen (tmux capture-pane -p > FILE), or - for stdin', { code: 'usage' });
  }
}

/**
 * Render an ANSI capture through the live mirror's terminal (tmux's character widths, the same
 * cell-by-cell rows detection reads) and return its rows.
 */
export async function renderAnsiRows(data: string, cols = 120): Promise<string[]> {
  // Avoid a final newline scrolling the first row away.
  const normalised = data.replace(/\r?\n/g, '\r\n').replace(/\r\n$/, '');
  const lineCount = Math.max(1, normalised.split('\r\n').length);
  const mirror = new Mirror(cols, lineCount, { scrollback: 0 });
  try {
    mirror.write(Buffer.from(normalised, 'utf8'));
    await mirror.flushed();
    return mirror.snapshot().rows;
  } finally {
    mirror.dispose();
  }
}

export interface DetectReport {
  agent: string;
  state: Detection['state'];
  rule: string | null;
  priority: number | null;
  region: string | null;
  fallbackReason: string | null;
  visibleIdle: boolean;
  visibleBlocker: boolean;
  visibleWorking: boolean;
  skipStateUpdate: boolean;
  skip: boolean;
  matches: Detection['matches'];
  hasIdleRules: boolean;
  disabledRules: string[];
  manifest: { source: string; path: string; version: string | null; warnings: string[] };
}

export function buildReport(loaded: LoadedManifest, r: Detection): DetectReport {
  return {
    agent: loaded.agent,
    state: r.state,
    rule: r.rule,
    priority: r.winner?.priority ?? null,
    region: r.winner?.region ?? null,
    fallbackReason: r.fallbackReason,
    visibleIdle: r.visibleIdle,
    visibleBlocker: r.visibleBlocker,
    visibleWorking: r.visibleWorking,
    skipStateUpdate: r.skipStateUpdate,
    skip: r.skip,
    matches: r.matches,
    hasIdleRules: r.hasIdleRules,
    disabledRules: r.disabledRules,
    manifest: { source: loaded.source, path: loaded.path, version: loaded.version, warnings: loaded.warnings },
  };
}

export function formatReport(rep: DetectReport): string {
  const flags = [
    rep.visibleIdle ? 'visible_idle' : '',
    rep.visibleBlocker ? 'visible_blocker' : '',
    rep.visibleWorking ? 'visible_working' : '',
    rep.skipStateUpdate ? 'skip_state_update' : '',
  ].filter(Boolean);
  const lines = [
    `agent:     ${rep.agent}`,
    `state:     ${rep.state}`,
    `rule:      ${rep.rule === null ? '(none)' : `${rep.rule} (priority ${rep.priority}, region ${rep.region})`}`,
    `fallback:  ${rep.fallbackReason ?? '-'}`,
    `visible:   ${flags.length ? flags.join(', ') : '-'}`,
    `matches:   ${rep.matches.length ? '' : '(none)'}`,
    ...rep.matches.map((m) => `  ${String(m.priority).padStart(6)}  ${m.state.padEnd(8)} ${m.id} @ ${m.region}`),
    `manifest:  ${rep.manifest.source} ${rep.manifest.path} (version ${rep.manifest.version ?? 'none'})`,
    ...rep.manifest.warnings.map((w) => `warning:   ${w}`),
    ...(rep.disabledRules.length ? [`disabled:  ${rep.disabledRules.join(', ')} (too slow)`] : []),
  ];
  if (!rep.hasIdleRules) lines.push('note:      this manifest has no idle rule; idle only by fallback');
  return lines.join('\n');
}

interface DetectOptions {
  agent: string;
  screen: string;
  oscTitle?: string;
  oscProgress?: string;
  ansi?: boolean;
  cols: string;
  manifests: string[];
  json?: boolean;
}

export async function runDetect(opts: DetectOptions): Promise<{ report: DetectReport; text: string }> {
  const registry = new ManifestRegistry({ extraDirs: opts.manifests });
  const loaded = registry.get(opts.agent);
  if (!loaded) {
    const known = registry.agents();
    const problems = registry.problems().filter((p) => p.agent === opts.agent);
    const why = problems.length ? `\n${problems.map((p) => `  ${p.path}: ${p.reason}`).join('\n')}` : '';
    throw new NerdrError(
      `no usable manifest for agent "${opts.agent}".${why}\nKnown agents: ${known.join(', ') || '(none)'}.`,
      `pass one of them with --agent, or add DIR/${opts.agent}.toml and pass --manifests DIR`,
      { code: 'usage' },
    );
  }
  const cols = Number(opts.cols);
  if (!Number.isInteger(cols) || cols < 1 || cols > 10000) throw new NerdrError('--cols must be a positive whole number', 'e.g. --cols 120', { code: 'usage' });
  const raw = await readInput(opts.screen);
  const text = opts.ansi ? rowsToText(await renderAnsiRows(raw, cols)) : rawScreenText(raw);
  const r = detectText(loaded, text, { oscTitle: opts.oscTitle ?? '', oscProgress: opts.oscProgress ?? '' });
  return { report: buildReport(loaded, r), text };
}

export function register(program: Command): void {
  program
    .command('detect')
    .description('evaluate one screen with the current manifests and print the result (state, rule, fallback, visible flags)')
    .requiredOption('--agent <agent>', 'agent whose manifest to use (e.g. claude, codex)')
    .requiredOption('--screen <file>', 'screen file (tmux capture-pane -p output), or - for stdin')
    .option('--osc-title <title>', 'OSC 0/2 title the agent set', '')
    .option('--osc-progress <payload>', 'text after "9;" of the last OSC 9, e.g. 4;3;', '')
    .option('--ansi', 'the screen holds escape sequences (capture-pane -e): render it in a headless terminal')
    .addOption(new Option('--cols <n>', 'terminal width used with --ansi').default('120'))
    .option('--manifests <dir>', 'extra folder of manifests, searched before all others (repeatable)', collect, [])
    .option('--json', 'print a JSON object')
    .action(async (opts: DetectOptions) => {
      // what cannot be read is a NerdrError with code usage: exit 2 (docs/errors.md)
      const { report } = await runDetect(opts);
      process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
    });
}
