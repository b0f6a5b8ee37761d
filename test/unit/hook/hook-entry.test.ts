// `nerdr hook <agent>`: spawned for real (compiled with a private tsconfig, so the test does not
// depend on the rest of the tree compiling) and called in-process through runHook().
import { spawn, spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runHook } from '../../../src/cli/hook-entry.js';
import { createSocketServer, type HookReport, type SocketServer } from '../../../src/supervisor/socket/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SECRET = 'tab-secret-hook';
let work: string;
let bin: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'nerdr-hook-'));
  await writeFile(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: { outDir: join(work, 'dist'), rootDir: join(ROOT, 'src'), sourceMap: false, typeRoots: [join(ROOT, 'node_modules/@types')] },
      files: [join(ROOT, 'src/cli/hook-entry.ts')],
      include: [],
    }),
  );
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(work, 'tsconfig.json')], { encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`tsc failed: ${tsc.stdout}${tsc.stderr}`);
  await mkdir(join(work, 'bin'));
  bin = join(work, 'bin', 'nerdr.js');
  await copyFile(join(ROOT, 'bin/nerdr.js'), bin);
  await copyFile(join(ROOT, 'bin/package.json'), join(work, 'bin', 'package.json'));
  await writeFile(join(work, 'package.json'), '{"type":"module"}');
}, 60_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Spawns `node bin/nerdr.js hook <agent>` with `input` on stdin (`undefined`: stdin left open). */
function hook(agent: string, env: Record<string, string | undefined>, input: Buffer | string | undefined): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const baseEnv = { ...process.env };
    for (const k of ['NERDR_SOCKET', 'NERDR_TAB', 'HERDR_PANE_ID', 'NERDR_HOOK_DEBUG']) delete baseEnv[k];
    const child = spawn(process.execPath, [bin, 'hook', agent], { env: { ...baseEnv, ...env } as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {});
    if (input !== undefined) child.stdin.end(input);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - t0 }));
  });
}

/** A socket server that records raw lines and never answers (or answers when told). */
async function rawServer(path: string, answer: boolean): Promise<{ server: Server; lines: string[]; connections: () => number }> {
  const lines: string[] = [];
  let n = 0;
  const server = createServer((s) => {
    n += 1;
    let buf = '';
    s.on('data', (d) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf('\n')) !== -1) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (answer) s.end('{"id":"x","result":{"type":"ok"}}\n');
      }
    });
    s.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(path, r));
  return { server, lines, connections: () => n };
}

/** Longer than any run that ends by its deadline can take, even on a loaded machine that starts
 * Node slowly; shorter than a hang. Not a speed figure (bench/hook.js measures that). */
const HANG_MS = 5000;

describe('nerdr hook (spawned)', () => {
  let dir: string;
  let sockPath: string;
  let srv: SocketServer | undefined;
  let hooks: HookReport<string>[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nerdr-hooksock-'));
    sockPath = join(dir, 'run', 'nerdr.sock');
    hooks = [];
  });
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const startReal = async () => {
    srv = await createSocketServer<string>({ path: sockPath, authenticate: (s) => (s === SECRET ? '@1' : null), onHook: (h) => void hooks.push(h) });
  };

  it('sends one nerdr.hook line with the secret, prints nothing, exits 0', async () => {
    await startReal();
    const event = { hook_event_name: 'PreToolUse', session_id: 'abc', tool_name: 'Bash', tool_input: { command: 'ls\n-la' } };
    const r = await hook('claude', { NERDR_SOCKET: sockPath, NERDR_TAB: SECRET }, JSON.stringify(event, null, 2));
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // Line breaks inside strings arrive as spaces (control characters never reach the supervisor).
    expect(hooks).toEqual([{ window: '@1', agent: 'claude', event: { ...event, tool_input: { command: 'ls -la' } } }]);
  });

  it('sends the exact line format, keeping big numbers digit for digit', async () => {
    await mkdir(join(dir, 'run'), { mode: 0o700 });
    const raw = await rawServer(sockPath, true);
    try {
      const r = await hook('codex', { NERDR_SOCKET: sockPath, NERDR_TAB: SECRET }, '{"hook_event_name":"Stop","n":18446744073709551615}\n');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(raw.lines).toHaveLength(1);
      expect(raw.lines[0]).toMatch(/^\{"id":"hook:\d+","method":"nerdr\.hook","params":\{"secret":"tab-secret-hook","agent":"codex","event":\{"hook_event_name":"Stop","n":18446744073709551615\}\}\}$/);
    } finally {
      raw.server.close();
    }
  });

  it('does nothing outside nerdr (no NERDR_SOCKET): no connection, nothing printed', async () => {
    await mkdir(join(dir, 'run'), { mode: 0o700 });
    const raw = await rawServer(sockPath, true);
    try {
      const r = await hook('claude', { NERDR_TAB: SECRET }, '{"a":1}');
      expect(r).toMatchObject({ code: 0, stdout: '' });
      expect(raw.connections()).toBe(0);
    } finally {
      raw.server.close();
    }
  });

  it('exits 0 quickly when the socket is missing', async () => {
    const r = await hook('claude', { NERDR_SOCKET: join(dir, 'nope.sock'), NERDR_TAB: SECRET }, '{"a":1}');
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(r.ms).toBeLessThan(HANG_MS);
  });

  it('gives up on a socket that never answers within ~1 s, exit 0', async () => {
    await mkdir(join(dir, 'run'), { mode: 0o700 });
    const raw = await rawServer(sockPath, false);
    try {
      const r = await hook('claude', { NERDR_SOCKET: sockPath, NERDR_TAB: SECRET }, '{"a":1}');
      expect(r).toMatchObject({ code: 0, stdout: '' });
      expect(r.ms).toBeLessThan(HANG_MS);
      expect(raw.lines).toHaveLength(1);
    } finally {
      raw.server.close();
    }
  });

  it('does not wait for stdin that never closes', async () => {
    await startReal();
    const r = await hook('claude', { NERDR_SOCKET: sockPath, NERDR_TAB: SECRET }, undefined);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.ms).toBeLessThan(HANG_MS);
    expect(hooks).toEqual([{ window: '@1', agent: 'claude', event: null, dropped: 'empty' }]);
  });

  it('drops a 2 MiB payload and reports only that it was too large', async () => {
    await startReal();
    const big = JSON.stringify({ hook_event_name: 'PostToolUse', tool_response: 'x'.repeat(2 * 1024 * 1024) });
    const r = await hook('claude', { NERDR_SOCKET: sockPath, NERDR_TAB: SECRET }, big);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.ms).toBeLessThan(HANG_MS);
    expect(hooks).toEqual([{ window: '@1', agent: 'claude', event: null, dropped: 'too_large' }]);
  });

  it('copes with binary stdin', async () => {
    await startReal();
    const r = await hook('gemini', { NERDR_SOCKET: sockPath, NERDR_TAB: SECRET }, Buffer.from([0xff, 0x00, 0xfe, 0x7b, 0x0a, 0x80]));
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(hooks).toEqual([{ window: '@1', agent: 'gemini', event: null, dropped: 'malformed' }]);
  });

  it('exits 0 with a wrong secret (the server refuses, nothing changes)', async () => {
    await startReal();
    const r = await hook('claude', { NERDR_SOCKET: sockPath, NERDR_TAB: 'wrong' }, '{"a":1}');
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(hooks).toEqual([]);
  });

  it('imports nothing but node builtins (itself, and the payload rule it shares with the spool reader)', async () => {
    const seen = new Set<string>();
    const walk = async (file: string): Promise<void> => {
      if (seen.has(file)) return;
      seen.add(file);
      const js = await readFile(file, 'utf8');
      const specifiers = [...js.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2]);
      for (const s of specifiers) {
        if (s!.startsWith('.')) await walk(join(dirname(file), s!));
        else expect(s).toMatch(/^node:/);
      }
    };
    await walk(join(work, 'dist/cli/hook-entry.js'));
    expect([...seen].map((f) => f.slice(join(work, 'dist').length + 1)).sort()).toEqual(['cli/hook-entry.js', 'integrations/payload.js']);
  });
});

describe('runHook (in-process)', () => {
  const stdinOf = (text: string | undefined) => {
    const s = new PassThrough();
    if (text !== undefined) s.end(text);
    return s;
  };

  it('returns outside_nerdr without reading stdin', async () => {
    expect(await runHook({ agent: 'claude', env: {}, stdin: stdinOf(undefined) })).toBe('outside_nerdr');
  });

  it('returns no_secret without NERDR_TAB', async () => {
    expect(await runHook({ agent: 'claude', env: { NERDR_SOCKET: '/nonexistent' }, stdin: stdinOf('{}') })).toBe('no_secret');
  });

  it('returns unreachable for a missing socket', async () => {
    expect(await runHook({ agent: 'claude', env: { NERDR_SOCKET: '/nonexistent/x.sock', NERDR_TAB: 's' }, stdin: stdinOf('{}') })).toBe('unreachable');
  });

  it('accepts HERDR_PANE_ID as the secret', async () => {
    const d = await mkdtemp(join(tmpdir(), 'nerdr-hookrun-'));
    const hooks: HookReport<string>[] = [];
    const s = await createSocketServer<string>({ path: join(d, 's', 'n.sock'), authenticate: (x) => (x === 'p' ? 'w' : null), onHook: (h) => void hooks.push(h) });
    try {
      const out = await runHook({ agent: ' opencode ', env: { NERDR_SOCKET: s.path, HERDR_PANE_ID: 'p' }, stdin: stdinOf('\uFEFF{"type":"session.idle"}') });
      expect(out).toBe('sent');
      expect(hooks).toEqual([{ window: 'w', agent: 'opencode', event: { type: 'session.idle' } }]);
    } finally {
      await s.close();
      await rm(d, { recursive: true, force: true });
    }
  });
});
