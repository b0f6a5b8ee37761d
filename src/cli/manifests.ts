// `nerdr manifests list` and `nerdr manifests check [FILE]`.

import fs from 'node:fs';
import { exitFor } from '../errors.js';
import path from 'node:path';
import type { Command } from 'commander';
import { lintManifest, ManifestRegistry, parseManifest } from '../detect/index.js';
import { allDirs, agentsInDir } from '../detect/sources.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export interface CheckedFile {
  path: string;
  source: string;
  ok: boolean;
  errors: string[];
  warnings: string[];
}

export function checkFile(file: string, source = 'file'): CheckedFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return { path: file, source, ok: false, errors: [`cannot read: ${(e as Error).message}`], warnings: [] };
  }
  const r = parseManifest(text);
  if (!r.ok) return { path: file, source, ok: false, errors: r.errors, warnings: [] };
  const warnings = lintManifest(r.manifest);
  const stem = path.basename(file, '.toml');
  if (source !== 'bundled' && source !== 'file' && r.manifest.id !== stem && !r.manifest.aliases.includes(stem)) {
    warnings.push(`file name "${stem}" is neither the id "${r.manifest.id}" nor an alias`);
  }
  return { path: file, source, ok: true, errors: [], warnings };
}

export function register(program: Command): void {
  const cmd = program.command('manifests').description('list and check agent-detection manifests');

  cmd
    .command('list')
    .description('the manifest in use per agent: source, path, version, and any problems')
    .option('--manifests <dir>', 'extra folder of manifests, searched before all others (repeatable)', collect, [])
    .option('--json', 'print JSON')
    .action((opts: { manifests: string[]; json?: boolean }) => {
      const registry = new ManifestRegistry({ extraDirs: opts.manifests });
      const problems = registry.problems();
      const rows = registry.agents().map((agent) => {
        const l = registry.get(agent);
        return {
          agent,
          source: l?.source ?? null,
          path: l?.path ?? null,
          version: l?.version ?? null,
          rules: l?.manifest.rules.length ?? 0,
          hasIdleRules: l?.manifest.hasIdleRules ?? false,
          warnings: l?.warnings ?? [],
          problems: problems.filter((p) => p.agent === agent).map((p) => ({ path: p.path, source: p.source, reason: p.reason })),
        };
      });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      for (const r of rows) {
        process.stdout.write(
          `${r.agent.padEnd(12)} ${(r.source ?? 'NONE').padEnd(13)} ${(r.version ?? '-').padEnd(14)} ${r.path ?? '(no usable file)'}\n`,
        );
        for (const w of r.warnings) process.stdout.write(`${''.padEnd(12)} note: ${w}\n`);
        for (const p of r.problems) process.stdout.write(`${''.padEnd(12)} problem: ${p.path}: ${p.reason}\n`);
      }
    });

  cmd
    .command('check [file]')
    .description('validate one manifest file, or every file in every source; exits non-zero if any is invalid')
    .option('--manifests <dir>', 'extra folder of manifests to include (repeatable)', collect, [])
    .option('--json', 'print JSON')
    .action((file: string | undefined, opts: { manifests: string[]; json?: boolean }) => {
      let results: CheckedFile[];
      if (file !== undefined) {
        results = [checkFile(file)];
      } else {
        const registry = new ManifestRegistry({ extraDirs: opts.manifests });
        results = allDirs(registry.paths).flatMap((d) =>
          agentsInDir(d.dir).map((a) => checkFile(path.join(d.dir, `${a}.toml`), d.kind)),
        );
      }
      if (opts.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
      else {
        for (const r of results) {
          process.stdout.write(`${r.ok ? 'ok     ' : 'INVALID'} ${r.path} (${r.source})\n`);
          for (const w of r.warnings) process.stdout.write(`        warning: ${w}\n`);
        }
      }
      const bad = results.filter((r) => !r.ok);
      for (const r of bad) {
        process.stderr.write(`nerdr manifests check: ${r.path} is invalid:\n${r.errors.map((e) => `  ${e}`).join('\n')}\n`);
      }
      if (bad.length > 0) {
        process.stderr.write('Fix the file (see docs/manifest-format.md), or remove it to fall back to the next source.\n');
        process.exitCode = exitFor('invalid_manifest');
      }
    });
}
