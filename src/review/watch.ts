// Tells the panel when the reviewed checkout changes: chokidar on its folders (inotify, no
// polling), leaving out .git, node_modules and the folders git ignores, plus the git dir's HEAD
// and index (a commit, a checkout, a `git add`). Changes are debounced: one call after a quiet
// spell, and at least one a second while an agent keeps writing.

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

/**
 * chokidar on folders only: it would hold an fs.watch (an inotify watch) per file, 50,000 of
 * them in a large repository (258 MB and 33 s to start, docs/performance.md). A folder's watch
 * reports its files' changes too, as raw events naming the file; those are the signal.
 */
function watchFolders(root: string, opts: { depth?: number; skip: (p: string) => boolean; wanted: (p: string) => boolean }, changed: () => void): CheckoutWatch {
  const w: FSWatcher = watch(root, {
    ignoreInitial: true,
    persistent: true,
    ...(opts.depth !== undefined ? { depth: opts.depth } : {}),
    ignored: (p: string, stats?: { isDirectory(): boolean }) => p !== root && (opts.skip(p) || (stats !== undefined && !stats.isDirectory())),
  });
  w.on('raw', (_event, file: string, details: unknown) => {
    const at = (details as { watchedPath?: string } | undefined)?.watchedPath ?? root;
    const p = file ? path.join(at, file) : at;
    if (opts.wanted(p)) changed();
  });
  // a folder that vanishes or is unreadable must not end the panel
  w.on('error', () => undefined);
  return { ready: new Promise<void>((r) => w.once('ready', () => r())), close: () => w.close() };
}

export function watchCheckout(top: string, gitDir: string, ignoredFolders: readonly string[], changed: () => void): CheckoutWatch {
  const ignored = new Set(ignoredFolders);
  const skip = (p: string): boolean => isIgnored(p, top, ignored);
  const tree = watchFolders(top, { skip, wanted: (p) => !skip(p) }, changed);
  const meta = watchFolders(gitDir, { depth: 0, skip: () => true, wanted: (p) => GIT_FILES.has(path.basename(p)) }, changed);
  return {
    ready: Promise.all([tree.ready, meta.ready]).then(() => undefined),
    close: async () => {
      await Promise.all([tree.close(), meta.close()]);
    },
  };
}

/** Watches the data dir's note files (walkthrough.jsonl, why.jsonl): a new step or note shows at once. */
export function watchNotes(dir: string, names: readonly string[], changed: () => void): CheckoutWatch {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const wanted = new Set(names);
  return watchFolders(dir, { depth: 0, skip: () => true, wanted: (p) => wanted.has(path.basename(p)) }, changed);
}
