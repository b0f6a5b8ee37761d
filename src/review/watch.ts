// Tells the panel when the reviewed checkout changes: chokidar on its top folder (no polling),
// leaving out .git, node_modules and the folders git ignores, plus the git dir's HEAD and index
// (a commit, a checkout, a `git add`). Changes are debounced: one call after a quiet spell,
// and at least one a second while an agent keeps writing.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

/** Calls `fn` `quietMs` after the last `poke`, or `maxMs` after the first one of a busy spell. */
export class Debouncer {
  private timer: NodeJS.Timeout | null = null;
  private first = 0;

  constructor(
    private readonly fn: () => void,
    private readonly quietMs = 200,
    private readonly maxMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  poke(): void {
    const t = this.now();
    if (this.timer) clearTimeout(this.timer);
    else this.first = t;
    const wait = Math.max(0, Math.min(this.quietMs, this.first + this.maxMs - t));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.fn();
    }, wait);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** Whether the watcher leaves `p` out: inside .git or node_modules, or a folder git ignores. */
export function isIgnored(p: string, top: string, ignored: ReadonlySet<string>): boolean {
  const rel = path.relative(top, p);
  if (rel === '') return false;
  const parts = rel.split(path.sep);
  if (parts.includes('.git') || parts.includes('node_modules')) return true;
  // the folder itself or one of its parents is ignored by git
  let cur = p;
  for (let i = parts.length; i > 0; i--) {
    if (ignored.has(cur)) return true;
    cur = path.dirname(cur);
  }
  return false;
}

const GIT_FILES = new Set(['HEAD', 'index']);

export interface CheckoutWatch {
  /** Resolves once the first scan is done (events before it are not reported). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function watchCheckout(top: string, gitDir: string, ignoredFolders: readonly string[], changed: () => void): CheckoutWatch {
  const ignored = new Set(ignoredFolders);
  const tree: FSWatcher = watch(top, {
    ignoreInitial: true,
    persistent: true,
    ignored: (p: string) => isIgnored(p, top, ignored),
  });
  const meta: FSWatcher = watch(gitDir, {
    ignoreInitial: true,
    persistent: true,
    depth: 0,
    ignored: (p: string) => p !== gitDir && !GIT_FILES.has(path.basename(p)),
  });
  tree.on('all', () => changed());
  meta.on('all', () => changed());
  // a folder that vanishes or is unreadable must not end the panel
  tree.on('error', () => undefined);
  meta.on('error', () => undefined);
  const ready = Promise.all([new Promise<void>((r) => tree.once('ready', () => r())), new Promise<void>((r) => meta.once('ready', () => r()))]).then(() => undefined);
  return {
    ready,
    close: async () => {
      await Promise.all([tree.close(), meta.close()]);
    },
  };
}

/** Watches the data dir's note files (walkthrough.jsonl, why.jsonl): a new step or note shows at once. */
export function watchNotes(dir: string, names: readonly string[], changed: () => void): CheckoutWatch {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const wanted = new Set(names);
  const w: FSWatcher = watch(dir, { ignoreInitial: true, persistent: true, depth: 0, ignored: (p: string) => p !== dir && !wanted.has(path.basename(p)) });
  w.on('all', () => changed());
  w.on('error', () => undefined);
  return { ready: new Promise<void>((r) => w.once('ready', () => r())), close: () => w.close() };
}
