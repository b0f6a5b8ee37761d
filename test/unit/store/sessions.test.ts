// Saved sessions: atomic saves, snapshots (throttled, capped), broken files kept aside, and
// several processes saving at once (children run a private compile of src/store/sessions.ts).
import { spawn, spawnSync } from 'node:child_process';
import ts from 'typescript';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NerdrError } from '../../../src/errors.js';
import { SNAPSHOT_EVERY_MS, SessionStore, sessionBase, type SavedSession, type SavedWindow } from '../../../src/store/sessions.js';
import { acquire, LockTimeoutError } from '../../../src/store/lock.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER = '/tmp/tmux-1000/default';
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

function win(over: Partial<SavedWindow> = {}): SavedWindow {
  return { agent: 'claude', name: 'claude', index: 1, cwd: '/work/p', args: [], argv: ['claude'], conversationId: null, conversationFrom: null, queue: [], ...over };
}

function sess(session: string, windows: SavedWindow[] = [win()], server = SERVER, savedAt = new Date(T0).toISOString()): SavedSession {
  return { version: 1, server, session, savedAt, windows };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nerdr-sessions-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function clock(start = T0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('SessionStore', () => {
  it('names files <safe session>-<8 hex> and keeps servers and look-alike names apart', () => {
    const a = sessionBase(SERVER, 'my work/α');
    expect(a).toMatch(/^my_work__-[0-9a-f]{8}$/);
    expect(sessionBase(SERVER, 'my work/β')).not.toBe(a); // same safe name, other session
    expect(sessionBase('/tmp/tmux-1000/other', 'my work/α')).not.toBe(a);
    expect(sessionBase(SERVER, 'my work/α')).toBe(a);
  });

  it('saves atomically and loads what it saved; no temp file is left', () => {
    const store = new SessionStore(dir);
    const s = sess('work', [win({ index: 3, args: ['--model', 'opus'], conversationId: 'c1', conversationFrom: 'hook', queue: [{ id: 'm1', text: 'hi', queuedAt: 1 }] })]);
    store.save(s);
    expect(store.load(SERVER, 'work')).toEqual(s);
    expect(store.load(SERVER, 'other')).toBeNull();
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-') || n.endsWith('.lock'))).toEqual([]);
    expect(store.list(SERVER)).toEqual([{ session: 'work', file: store.file(SERVER, 'work'), savedAt: s.savedAt, windows: 1 }]);
    expect(store.list('/tmp/tmux-1000/elsewhere')).toEqual([]);
  });

  it('refuses to save an invalid session (a bad index)', () => {
    const store = new SessionStore(dir);
    expect(() => store.save(sess('work', [win({ index: -1 })]))).toThrow(NerdrError);
    expect(existsSync(store.file(SERVER, 'work'))).toBe(false);
  });

  it('copies the previous version to snapshots/ at most once every 15 minutes', () => {
    const c = clock();
    const store = new SessionStore(dir, { now: c.now });
    store.save(sess('work', [win({ name: 'v1' })]));
    expect(store.snapshots(SERVER, 'work')).toEqual([]); // nothing to keep yet
    store.save(sess('work', [win({ name: 'v2' })]));
    const first = store.snapshots(SERVER, 'work');
    expect(first).toHaveLength(1);
    expect(store.loadFile(first[0]!.file).windows[0]!.name).toBe('v1');
    c.advance(SNAPSHOT_EVERY_MS - 1);
    store.save(sess('work', [win({ name: 'v3' })]));
    expect(store.snapshots(SERVER, 'work')).toHaveLength(1);
    c.advance(1);
    store.save(sess('work', [win({ name: 'v4' })]));
    const snaps = store.snapshots(SERVER, 'work');
    expect(snaps).toHaveLength(2);
    expect(store.loadFile(snaps[0]!.file).windows[0]!.name).toBe('v3'); // newest first
    expect(snaps[0]!.savedAt).toBe(new Date(T0 + SNAPSHOT_EVERY_MS).toISOString());
    // another session has its own throttle
    store.save(sess('other'));
    store.save(sess('other', [win({ name: 'o2' })]));
    expect(store.snapshots(SERVER, 'other')).toHaveLength(1);
  });

  it('keeps the newest 20 snapshots per session', () => {
    const c = clock();
    const store = new SessionStore(dir, { now: c.now });
    for (let i = 0; i < 30; i++) {
      store.save(sess('work', [win({ name: `v${i}` })]));
      c.advance(SNAPSHOT_EVERY_MS);
    }
    store.save(sess('other'));
    store.save(sess('other', [win({ name: 'x' })]));
    const snaps = store.snapshots(SERVER, 'work');
    expect(snaps).toHaveLength(20);
    // v0..v28 were copied (v29 is current); the newest 20 are v28 … v9
    expect(store.loadFile(snaps[0]!.file).windows[0]!.name).toBe('v28');
    expect(store.loadFile(snaps[19]!.file).windows[0]!.name).toBe('v9');
    expect(store.snapshots(SERVER, 'other')).toHaveLength(1);
  });

  it('moves a broken file aside, never overwrites it, and reports it', () => {
    const c = clock();
    const logs: string[] = [];
    const store = new SessionStore(dir, { now: c.now, log: (level, msg) => logs.push(`${level}: ${msg}`) });
    mkdirSync(dir, { recursive: true });
    const file = store.file(SERVER, 'work');
    writeFileSync(file, '{"version":1, truncated');
    store.save(sess('work', [win({ name: 'new' })]));
    const base = sessionBase(SERVER, 'work');
    const broken = readdirSync(dir).filter((n) => n.startsWith(`${base}.broken-`));
    expect(broken).toHaveLength(1);
    expect(readFileSync(join(dir, broken[0]!), 'utf8')).toBe('{"version":1, truncated');
    expect(store.load(SERVER, 'work')!.windows[0]!.name).toBe('new');
    expect(store.problems()).toHaveLength(1);
    expect(store.problems()[0]).toContain(broken[0]);
    expect(logs[0]).toMatch(/^warn: .*not JSON/);
    expect(store.snapshots(SERVER, 'work')).toEqual([]); // the broken text is not a snapshot
  });

  it('a file with one bad field is broken: load() moves it aside and returns null; the others still load', () => {
    const store = new SessionStore(dir);
    store.save(sess('good'));
    store.save(sess('bad'));
    const bad = store.file(SERVER, 'bad');
    const j = JSON.parse(readFileSync(bad, 'utf8'));
    j.windows[0].index = 'one';
    writeFileSync(bad, JSON.stringify(j));
    expect(store.list(SERVER).map((l) => l.session)).toEqual(['good']);
    expect(store.problems()[0]).toMatch(/windows\.0\.index/);
    expect(existsSync(bad)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.includes('.broken-'))).toHaveLength(1);
    expect(store.load(SERVER, 'bad')).toBeNull();
    expect(store.load(SERVER, 'good')).not.toBeNull();
    // a second broken file in the same millisecond gets its own name
    writeFileSync(bad, 'nope');
    const fixed = new SessionStore(dir, { now: () => T0 });
    writeFileSync(store.file(SERVER, 'good'), 'nope');
    fixed.load(SERVER, 'bad');
    fixed.load(SERVER, 'good');
    writeFileSync(bad, 'again');
    fixed.load(SERVER, 'bad');
    expect(readdirSync(dir).filter((n) => n.includes('.broken-'))).toHaveLength(4);
  });

  it('loadFile names the path and the reason', () => {
    const store = new SessionStore(dir);
    const f = join(dir, 'x.json');
    writeFileSync(f, JSON.stringify({ version: 2 }));
    expect(() => store.loadFile(f)).toThrow(/x\.json is not a saved nerdr session \(version/);
    expect(() => store.loadFile(join(dir, 'missing.json'))).toThrow(/cannot read .*missing\.json/);
  });
});

describe('file lock', () => {
  it('waits for the holder, then times out with who holds it', () => {
    const f = join(dir, 'a.lock');
    const release = acquire(f);
    expect(() => acquire(f, { waitMs: 50 })).toThrow(LockTimeoutError);
    release();
    acquire(f, { waitMs: 50 })();
    expect(existsSync(f)).toBe(false);
  });

  it('takes over a lock whose process is gone', () => {
    const f = join(dir, 'b.lock');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(f, `${dead.stdout} deadbeef ${Date.now()}\n`);
    const release = acquire(f, { waitMs: 100 });
    expect(readFileSync(f, 'utf8')).toContain(String(process.pid));
    release();
  });
});

describe('several processes saving at once', () => {
  let work: string;
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('loses nothing: own sessions all land, the shared one is a whole version, snapshots parse', async () => {
    work = mkdtempSync(join(tmpdir(), 'nerdr-sessions-build-'));
    // a plain transpile of the store and what it imports (fast; types are checked by tsc elsewhere)
    for (const f of ['store/sessions.ts', 'store/atomic.ts', 'store/lock.ts', 'errors.ts', 'tmux/server.ts', 'tmux/socket-path.ts', 'tmux/quote.ts']) {
      const out = ts.transpileModule(readFileSync(join(ROOT, 'src', f), 'utf8'), { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } });
      mkdirSync(join(work, 'dist', f, '..'), { recursive: true });
      writeFileSync(join(work, 'dist', f.replace(/\.ts$/, '.js')), out.outputText);
    }
    writeFileSync(join(work, 'package.json'), '{"type":"module"}');
    symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'));
    const child = join(work, 'child.mjs');
    writeFileSync(
      child,
      `import { SessionStore } from './dist/store/sessions.js';
const [dir, me, rounds] = process.argv.slice(2);
let t = Date.parse('2030-01-01T00:00:00Z');
const store = new SessionStore(dir, { now: () => (t += 60_000) });
const w = (name, index) => ({ agent: 'claude', name, index, cwd: '/p', args: [], argv: ['claude'], conversationId: null, conversationFrom: null, queue: [] });
for (let i = 0; i < Number(rounds); i++) {
  store.save({ version: 1, server: '${SERVER}', session: 'own-' + me, savedAt: new Date().toISOString(), windows: [w(me + '-' + i, i)] });
  store.save({ version: 1, server: '${SERVER}', session: 'shared', savedAt: new Date().toISOString(), windows: [w(me + '-' + i, 0), w('second', 1)] });
}
if (store.problems().length) { console.error(store.problems().join('\\n')); process.exit(2); }
`,
    );
    const N = 6;
    const ROUNDS = 40;
    const runs = await Promise.all(
      Array.from({ length: N }, (_, k) =>
        new Promise<{ code: number | null; err: string }>((resolve) => {
          const c = spawn(process.execPath, [child, dir, `p${k}`, String(ROUNDS)], { stdio: ['ignore', 'ignore', 'pipe'] });
          let err = '';
          c.stderr.on('data', (b: Buffer) => (err += b.toString()));
          c.on('close', (code) => resolve({ code, err }));
        }),
      ),
    );
    for (const r of runs) expect(r.code, r.err).toBe(0);
    const store = new SessionStore(dir);
    for (let k = 0; k < N; k++) {
      const s = store.load(SERVER, `own-p${k}`);
      expect(s?.windows[0]!.name).toBe(`p${k}-${ROUNDS - 1}`);
    }
    const shared = store.load(SERVER, 'shared')!;
    expect(shared.windows).toHaveLength(2);
    expect(shared.windows[0]!.name).toMatch(new RegExp(`^p\\d-${ROUNDS - 1}$`)); // some writer's last version
    const names = readdirSync(dir);
    expect(names.filter((n) => n.includes('.broken-') || n.includes('.tmp-') || n.includes('.lock'))).toEqual([]);
    expect(store.list(SERVER)).toHaveLength(N + 1);
    expect(store.problems()).toEqual([]);
    const snaps = store.snapshots(SERVER, 'shared');
    expect(snaps.length).toBeGreaterThan(0);
    expect(snaps.length).toBeLessThanOrEqual(20);
    for (const s of snaps) expect(store.loadFile(s.file).session).toBe('shared');
    expect(readdirSync(join(dir, 'snapshots')).filter((n) => n.includes('.tmp-'))).toEqual([]);
  }, 60_000);
});
