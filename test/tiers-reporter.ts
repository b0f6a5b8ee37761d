// A vitest reporter for the tiers of vitest.config.ts (unit, live, floods, and each of them on the
// other tmux builds): per tier, its files, tests passed / failed / skipped and how long it took
// from its first file's start to its last file's end; every failure again at the end, where a
// reader of only the tail sees it. `NERDR_TIERS_JSON=<file>` also writes the table as JSON.
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

interface Tier {
  files: number;
  passed: number;
  failed: number;
  skipped: number;
  startMs: number;
  endMs: number;
  failures: string[];
}

export default class TiersReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly ended = new Map<string, number>();
  private runStart = Date.now();

  onTestRunStart(): void {
    this.runStart = Date.now();
  }

  onTestModuleStart(m: TestModule): void {
    this.started.set(key(m), Date.now());
  }

  onTestModuleEnd(m: TestModule): void {
    this.ended.set(key(m), Date.now());
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const tiers = new Map<string, Tier>();
    for (const m of modules) {
      const name = m.project.name || 'default';
      const t = tiers.get(name) ?? { files: 0, passed: 0, failed: 0, skipped: 0, startMs: Infinity, endMs: 0, failures: [] };
      tiers.set(name, t);
      t.files++;
      const s = this.started.get(key(m));
      const e = this.ended.get(key(m));
      if (s !== undefined) t.startMs = Math.min(t.startMs, s);
      if (e !== undefined) t.endMs = Math.max(t.endMs, e);
      let failedHere = 0;
      for (const c of m.children.allTests()) {
        const r = c.result();
        if (r.state === 'passed') t.passed++;
        else if (r.state === 'failed') {
          t.failed++;
          failedHere++;
          const why = (r.errors ?? []).map((x) => x.message).join(' | ').split('\n').filter((l) => l.trim()).slice(0, 4).join('\n      ');
          t.failures.push(`${m.relativeModuleId} > ${c.fullName}\n      ${why.slice(0, 600)}`);
        } else t.skipped++;
      }
      // a file that failed outside any test (an import, a hook, an unhandled error)
      if (m.state() === 'failed' && failedHere === 0) {
        t.failed++;
        const why = m.errors().map((x) => x.message).join(' | ').split('\n')[0] ?? '';
        t.failures.push(`${m.relativeModuleId}: ${why.slice(0, 300)}`);
      }
    }
    const rows = [...tiers.entries()].map(([name, t]) => ({
      tier: name,
      files: t.files,
      passed: t.passed,
      failed: t.failed,
      skipped: t.skipped,
      seconds: t.endMs > 0 && Number.isFinite(t.startMs) ? Math.round((t.endMs - t.startMs) / 1000) : 0,
      // when in the run it began and ended, in seconds from the run's start
      from: Number.isFinite(t.startMs) ? Math.round((t.startMs - this.runStart) / 1000) : 0,
      to: t.endMs > 0 ? Math.round((t.endMs - this.runStart) / 1000) : 0,
      failures: t.failures,
    }));
    const out: string[] = ['', 'tiers:'];
    for (const r of rows) out.push(`  ${r.tier.padEnd(14)} ${String(r.files).padStart(3)} files  ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped  ${r.seconds} s (${r.from}–${r.to} s into the run)`);
    for (const r of rows) for (const f of r.failures) out.push(`  FAILED [${r.tier}] ${f}`);
    process.stdout.write(`${out.join('\n')}\n`);
    if (process.env.NERDR_TIERS_JSON) writeFileSync(process.env.NERDR_TIERS_JSON, `${JSON.stringify(rows, null, 2)}\n`);
  }
}

function key(m: TestModule): string {
  return `${m.project.name}\0${m.moduleId}`;
}
