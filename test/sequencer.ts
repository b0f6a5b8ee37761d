// The order in which `npm test` starts its files: in each group of tiers (vitest.config.ts), the
// longest first, whatever their project. vitest's own order runs one project's files after
// another's, in the order of their names, and on a clean clone (CI) knows no file's duration: the
// live tier on the last tmux build started its longest file, messages-send (67 s), when the rest
// of the tier was nearly done, and the tier waited on it alone.
//
// A file's length is what vitest's cache says of its last run here, or else test/durations.json:
// seconds per file from a CI run, the files over 5 s only (a file it does not list starts after
// those it does). Refresh it when the tiers' table shows a file far from its figure; a stale
// figure costs only some order, never a result.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const HINTS = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as Record<string, number>;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const ms = new Map<TestSpecification, number>();
    for (const f of files) {
      const rel = path.relative(root, f.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${f.project.name}:${rel}`)?.duration;
      ms.set(f, cached ?? (HINTS[rel] ?? 0) * 1000);
    }
    return [...files].sort((a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || ms.get(b)! - ms.get(a)!);
  }
}
