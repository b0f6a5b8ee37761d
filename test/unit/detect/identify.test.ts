// Which agent is in a pane: process tables → identify() (manifest-format.md §7), no tmux.

import fs, { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AGENT_ALIASES, agentLabel, identify, packageLabel, resolveProcess, type ProcInfo } from '../../../src/detect/identify.js';
import { parseCmdline, parseEnviron, parsePs, parseStat, readPaneProcesses } from '../../../src/detect/procfs.js';

const SHELL = 100;

/** A pane: interactive shell 100 (own group), foreground group `fg`. */
function table(fg: number, ...procs: Partial<ProcInfo>[]): ProcInfo[] {
  const shell: ProcInfo = { pid: SHELL, ppid: 1, pgid: SHELL, tpgid: fg, comm: 'bash', argv: ['-bash'], env: { NERDR_AGENT: 'unknown' } };
  return [
    shell,
    ...procs.map((p, i) => ({ pid: 200 + i, ppid: SHELL, pgid: fg, tpgid: fg, comm: '?', argv: [], ...p })),
  ];
}

/** The label of one foreground process (leader of its own group). */
function one(comm: string, argv: string[], env?: Record<string, string>): string | null {
  return identify(table(200, { pid: 200, comm, argv, ...(env ? { env } : {}) }), SHELL).agent;
}

describe('§7.1 labels and aliases', () => {
  it('accepts every alias, any case, with one trailing extension', () => {
    for (const [label, names] of Object.entries(AGENT_ALIASES)) {
      for (const n of names) {
        expect(agentLabel(n)).toBe(label);
        expect(agentLabel(n.toUpperCase())).toBe(label);
        expect(agentLabel(` ${n}.exe `)).toBe(label);
      }
    }
    // herdr's 22 labels are all there (nerdr may add agents herdr does not know)
    const herdrLabels = ['pi', 'claude', 'codex', 'gemini', 'cursor', 'devin', 'agy', 'cline', 'omp', 'mastracode', 'opencode', 'copilot', 'kimi', 'kiro', 'droid', 'amp', 'grok', 'hermes', 'kilo', 'qodercli', 'qwen', 'maki'];
    expect(herdrLabels).toHaveLength(22);
    for (const label of herdrLabels) expect(AGENT_ALIASES[label], label).toBeDefined();
    expect(agentLabel('Claude')).toBe('claude');
    expect(agentLabel('opencode.exe')).toBe('opencode');
    expect(agentLabel('Kimi Code')).toBe('kimi');
    expect(agentLabel('codex.cmd')).toBe('codex');
    expect(agentLabel('claude.js')).toBe('claude');
    expect(agentLabel('codex.exe.exe')).toBeNull(); // only one extension is removed
  });

  it('does not identify runtimes, shells or editors, nor the demo by name', () => {
    for (const n of ['node', 'bash', 'vim', 'python3', 'demo', 'agent', '']) expect(agentLabel(n)).toBeNull();
  });

  it('maps npm package specs', () => {
    expect(packageLabel('@anthropic-ai/claude-code')).toBe('claude');
    expect(packageLabel('@anthropic-ai/claude-code@latest')).toBe('claude');
    expect(packageLabel('@openai/codex@0.50.0')).toBe('codex');
    expect(packageLabel('@google/gemini-cli')).toBe('gemini');
    expect(packageLabel('opencode-ai')).toBe('opencode');
    expect(packageLabel('codex')).toBe('codex');
    expect(packageLabel('left-pad')).toBeNull();
  });
});

describe('§7.2 per-process name resolution', () => {
  it('native binaries by their name', () => {
    expect(one('codex', ['codex', '--model', 'o3'])).toBe('codex');
    expect(one('claude', ['claude'])).toBe('claude');
    expect(one('cursor-agent', ['cursor-agent'])).toBe('cursor');
    expect(one('opencode', ['/home/u/.opencode/bin/opencode'])).toBe('opencode');
    expect(one('vim', ['vim', 'codex.md'])).toBeNull();
    expect(one('/tmp/my-codex-helper', ['/tmp/my-codex-helper'])).toBeNull();
  });

  it('node/bun/deno running an agent script', () => {
    expect(one('node', ['node', '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js'])).toBe('claude');
    expect(one('node', ['node', '/home/u/.npm/bin/opencode'])).toBe('opencode');
    expect(one('node', ['node', '/path/to/bin/codex'])).toBe('codex');
    expect(one('node', ['/usr/bin/node', '--no-warnings', '-r', 'ts-node/register', '/x/node_modules/@openai/codex/bin/codex.js', 'resume'])).toBe('codex');
    expect(one('node', ['node', '--', '/usr/local/bin/gemini'])).toBe('gemini');
    expect(one('node', ['node', '/x/node_modules/@google/gemini-cli/dist/index.js'])).toBe('gemini');
    expect(one('bun', ['bun', '/home/u/.bun/bin/omp'])).toBe('omp');
    expect(one('bun', ['bun', 'run', '/home/u/.bun/bin/amp'])).toBe('amp');
    expect(one('deno', ['deno', 'run', '-A', '/opt/agents/claude.ts'])).toBeNull(); // .ts is not trimmed
    expect(one('deno', ['deno', 'run', '-A', '/opt/agents/codex.js'])).toBe('codex');
    expect(one('node.exe', ['node.exe', 'C:\\npm\\node_modules\\@earendil-works\\pi-coding-agent\\dist\\cli.js'])).toBe('pi');
    expect(one('node', ['node', '/x/node_modules/@qwen-code/qwen-code/dist/index.js'])).toBe('qwen');
    expect(one('node', ['node', '/x/node_modules/mastracode/dist/cli.js'])).toBe('mastracode');
  });

  it('gives up on inline code', () => {
    expect(one('node', ['node', '-e', 'require("codex")'])).toBeNull();
    expect(one('node', ['node', '-ecodex'])).toBeNull();
    expect(one('node', ['node', '--eval=codex'])).toBeNull();
    expect(one('node', ['node', '-p', 'codex', 'codex'])).toBeNull();
    expect(one('python3', ['python3', '-c', 'import codex', 'codex'])).toBeNull();
    expect(one('python3', ['python3', '-m', 'codex'])).toBeNull();
    expect(one('bash', ['bash', '-c', 'codex'])).toBeNull();
    expect(one('bash', ['bash', '-lc', 'codex'])).toBeNull();
  });

  it('python and shells running an agent script', () => {
    expect(one('python3.12', ['python3.12', '/nix/store/abc-hermes/bin/hermes', '--resume', 'x'])).toBe('hermes');
    expect(one('sh', ['sh', '/tmp/test-bin/pi'])).toBe('pi');
    expect(one('zsh', ['zsh', '-l', '/opt/bin/kimi'])).toBe('kimi');
  });

  it('npx / npm exec / a rewritten process title', () => {
    expect(one('npx', ['npx', '-y', '@anthropic-ai/claude-code'])).toBe('claude');
    expect(one('node', ['node', '/usr/bin/npx', '@openai/codex@latest'])).toBe('codex');
    expect(one('node', ['node', '/usr/lib/node_modules/npm/bin/npm-cli.js', 'exec', 'opencode-ai'])).toBe('opencode');
    expect(one('npm exec @anth', ['npm exec @anthropic-ai/claude-code'])).toBe('claude');
    expect(one('node', ['node', '/usr/bin/npx', 'prettier'])).toBeNull();
  });

  it('cmd and PowerShell (herdr parity)', () => {
    expect(one('cmd.exe', ['cmd.exe', '/D', '/S', '/C', '"C:\\Users\\u\\AppData\\Roaming\\npm\\codex.cmd --model x"'])).toBe('codex');
    expect(one('pwsh', ['pwsh', '-NoProfile', '-File', 'C:\\tools\\claude.ps1'])).toBe('claude');
    expect(one('powershell', ['powershell', '-Command', 'gemini --yolo'])).toBe('gemini');
  });

  it('Nix wrappers and renamed processes', () => {
    expect(one('.codex-wrapped', ['/etc/profiles/per-user/u/bin/codex'])).toBe('codex');
    expect(one('.claude-code-wr', ['/nix/store/x/bin/claude-code', '--resume'])).toBe('claude');
    expect(one('MainThread', ['node', '/x/node_modules/@qwen-code/qwen-code/dist/index.js'])).toBe('qwen');
    expect(one('claude', ['node', '/x/whatever.js'])).toBe('claude'); // comm set by prctl, argv not rewritten
  });

  it('tmux never wraps (nested tmux is invisible)', () => {
    expect(one('tmux', ['tmux', 'new', 'claude'])).toBeNull();
  });

  it('symlink-resolved script basename, through the injected realpath', () => {
    const procs = table(200, { pid: 200, comm: 'node', argv: ['node', '/home/u/bin/cc'] });
    expect(identify(procs, SHELL).agent).toBeNull();
    const realpath = (pid: number, token: string): string | null => (pid === 200 && token === '/home/u/bin/cc' ? '/opt/claude/bin/claude' : null);
    expect(identify(procs, SHELL, { realpath }).agent).toBe('claude');
    // a bare name is not a path: realpath is not asked
    expect(resolveProcess({ pid: 1, ppid: 0, pgid: 1, comm: 'node', argv: ['node', 'cc'] }, { realpath: () => '/x/claude' })).toBeNull();
  });

  it("nerdr's demo agent", () => {
    expect(one('node', ['/usr/bin/node', '/work/main/dist/demo/agent.js'])).toBe('demo');
    expect(one('node', ['node', '/home/u/.npm/lib/node_modules/nerdr/dist/demo/agent.js', '--auto', '0'])).toBe('demo');
    expect(one('node', ['node', '/home/u/agent.js'])).toBeNull();
  });
});

describe("programs the user's own manifests name (IdentifyOptions.names)", () => {
  const names = new Map([['aider', 'aider'], ['myrepl', 'myrepl']]);
  const id = (comm: string, argv: string[]) => identify(table(200, { pid: 200, comm, argv }), SHELL, { names });

  it('found by process name, argv[0], or the script a runtime or shell runs (a suffix such as .sh or .py may go)', () => {
    expect(id('aider', ['aider', '--yes'])).toMatchObject({ agent: 'aider', pid: 200 });
    expect(id('python3', ['/usr/bin/python3', '/home/me/.local/bin/aider', '--yes']).agent).toBe('aider');
    expect(id('sh', ['/bin/sh', './myrepl.sh']).agent).toBe('myrepl');
    expect(id('python3', ['python3', 'myrepl.py']).agent).toBe('myrepl');
  });

  it('nothing else is, and without the names neither is aider; a known agent keeps its own label', () => {
    expect(id('cat', ['cat']).agent).toBeNull();
    expect(identify(table(200, { pid: 200, comm: 'aider', argv: ['aider'] }), SHELL).agent).toBeNull();
    expect(identify(table(200, { pid: 200, comm: 'claude', argv: ['claude'] }), SHELL, { names: new Map([['claude', 'mine']]) }).agent).toBe('claude');
  });
});

describe('§7.3 choosing among the processes of the job', () => {
  it('the leader wins: claude plus an MCP child node …/bin/codex → claude', () => {
    const id = identify(
      table(200, { pid: 200, comm: 'claude', argv: ['claude'] }, { pid: 201, ppid: 200, comm: 'node', argv: ['node', '/x/bin/codex'] }),
      SHELL,
    );
    expect(id).toMatchObject({ agent: 'claude', pid: 200, foreground: 'job', pgid: 200 });
    expect(id.why).toContain('group leader');
  });

  it('leader bash + child node …/bin/codex → codex', () => {
    const id = identify(
      table(200, { pid: 200, comm: 'bash', argv: ['bash', './run.sh'] }, { pid: 201, ppid: 200, comm: 'node', argv: ['node', '/x/bin/codex'] }),
      SHELL,
    );
    expect(id).toMatchObject({ agent: 'codex', pid: 201 });
  });

  it('scores: a wrapped script (3) beats a plain name (2); the first wins ties', () => {
    const members = [
      { pid: 200, comm: 'make', argv: ['make', 'run'] },
      { pid: 201, comm: 'gemini', argv: ['gemini'] },
      { pid: 202, comm: 'node', argv: ['node', '/x/bin/codex'] },
      { pid: 203, comm: 'node', argv: ['node', '/x/bin/opencode'] },
    ];
    expect(identify(table(200, ...members), SHELL)).toMatchObject({ agent: 'codex', pid: 202 });
    expect(identify(table(200, members[0]!, members[1]!, { pid: 204, comm: 'amp', argv: ['amp'] }), SHELL)).toMatchObject({ agent: 'gemini', pid: 201 });
  });

  it('a group whose leader is gone is still judged by its members', () => {
    const id = identify(table(300, { pid: 301, pgid: 300, comm: 'node', argv: ['node', '/x/bin/codex'] }), SHELL);
    expect(id).toMatchObject({ agent: 'codex', pid: 301 });
  });

  it('processes outside the foreground group are ignored', () => {
    const procs = table(200, { pid: 200, comm: 'vim', argv: ['vim'] }, { pid: 250, pgid: 250, comm: 'claude', argv: ['claude'] });
    expect(identify(procs, SHELL)).toMatchObject({ agent: null, foreground: 'job', pgid: 200 });
  });
});

describe('§7.4 NERDR_AGENT / HERDR_AGENT override', () => {
  it('a hint on the leader wins over its name; aliases and case accepted', () => {
    expect(one('fence', ['fence', '--', 'claude'], { HERDR_AGENT: 'Claude-Code' })).toBe('claude');
    expect(one('codex', ['codex'], { HERDR_AGENT: 'claude' })).toBe('claude');
    expect(one('sandbox', ['sandbox'], { NERDR_AGENT: 'gemini' })).toBe('gemini');
    expect(one('node', ['node', '/x/y.js'], { NERDR_AGENT: 'demo' })).toBe('demo');
  });

  it('NERDR_AGENT comes before HERDR_AGENT; an unknown value gives no hint', () => {
    expect(one('x', ['x'], { NERDR_AGENT: 'codex', HERDR_AGENT: 'claude' })).toBe('codex');
    expect(one('x', ['x'], { HERDR_AGENT: 'not-an-agent' })).toBeNull();
    expect(one('codex', ['codex'], { HERDR_AGENT: 'not-an-agent' })).toBe('codex');
  });

  it("NERDR_AGENT inherited from the pane's launch environment is not a hint", () => {
    const procs = table(200, { pid: 200, comm: 'vim', argv: ['vim'], env: { NERDR_AGENT: 'claude' } });
    procs[0]!.env = { NERDR_AGENT: 'claude' };
    expect(identify(procs, SHELL).agent).toBeNull();
    procs[0]!.env = { NERDR_AGENT: 'unknown' };
    expect(identify(procs, SHELL).agent).toBe('claude');
  });

  it('order: leader hint, leader name, other hints, best member', () => {
    const leaderNamed = table(200, { pid: 200, comm: 'codex', argv: ['codex'] }, { pid: 201, comm: 'x', argv: ['x'], env: { HERDR_AGENT: 'claude' } });
    expect(identify(leaderNamed, SHELL)).toMatchObject({ agent: 'codex', pid: 200 });
    const memberHint = table(200, { pid: 200, comm: 'fence', argv: ['fence'] }, { pid: 201, comm: 'node', argv: ['node', '/x/bin/codex'] }, { pid: 202, comm: 'y', argv: ['y'], env: { HERDR_AGENT: 'amp' } });
    expect(identify(memberHint, SHELL)).toMatchObject({ agent: 'amp', pid: 202 });
  });
});

describe('shells and the foreground', () => {
  it("the pane's shell in the foreground → foreground 'shell'", () => {
    expect(identify(table(SHELL), SHELL)).toMatchObject({ agent: null, foreground: 'shell', pgid: SHELL });
  });

  it('a prompt helper in the shell\'s group is still the shell', () => {
    const procs = table(SHELL, { pid: 200, pgid: SHELL, comm: 'git', argv: ['git', 'status'] });
    expect(identify(procs, SHELL)).toMatchObject({ agent: null, foreground: 'shell' });
  });

  it('sh -c "claude; exec bash" (no job control): the agent shares the pane process\'s group', () => {
    const procs: ProcInfo[] = [
      { pid: SHELL, ppid: 1, pgid: SHELL, tpgid: SHELL, comm: 'sh', argv: ['sh', '-c', 'claude; exec bash'] },
      { pid: 201, ppid: SHELL, pgid: SHELL, tpgid: SHELL, comm: 'claude', argv: ['claude'] },
    ];
    expect(identify(procs, SHELL)).toMatchObject({ agent: 'claude', pid: 201, foreground: 'job' });
  });

  it('sh -c bash (nerdr new --cmd bash): the interactive bash in front is the shell', () => {
    const procs: ProcInfo[] = [
      { pid: SHELL, ppid: 1, pgid: SHELL, tpgid: 300, comm: 'sh', argv: ['/bin/sh', '-c', 'bash'] },
      { pid: 300, ppid: SHELL, pgid: 300, tpgid: 300, comm: 'bash', argv: ['bash'] },
    ];
    expect(identify(procs, SHELL)).toMatchObject({ agent: null, foreground: 'shell', pgid: 300 });
  });

  it('a pane whose process is the agent itself (nerdr new claude)', () => {
    const procs: ProcInfo[] = [{ pid: SHELL, ppid: 1, pgid: SHELL, tpgid: SHELL, comm: 'claude', argv: ['claude'], env: { NERDR_AGENT: 'claude' } }];
    expect(identify(procs, SHELL)).toMatchObject({ agent: 'claude', pid: SHELL, foreground: 'job' });
  });

  it('no pane process, no foreground group', () => {
    expect(identify([], SHELL)).toMatchObject({ agent: null, foreground: 'none' });
    expect(identify(table(-1), SHELL)).toMatchObject({ agent: null, foreground: 'none' });
    expect(identify(table(999), SHELL)).toMatchObject({ agent: null, foreground: 'none', pgid: 999 });
  });
});

describe('procfs parsers', () => {
  it('stat: the thread count (field 20) and start time (field 22)', () => {
    expect(parseStat('7 (sh) S 1 7 1 34816 7 0 0 0 0 0 0 0 0 0 20 0 3 0 123456 9')).toMatchObject({ pid: 7, threads: 3, start: '123456' });
  });

  it('stat: a name with spaces and parentheses', () => {
    expect(parseStat('4242 (we (ird) name) S 100 4242 100 34816 4242 4194304 0 0')).toEqual({
      pid: 4242, comm: 'we (ird) name', state: 'S', ppid: 100, pgid: 4242, session: 100, tpgid: 4242,
    });
    expect(parseStat('garbage')).toBeNull();
  });

  it('cmdline and environ', () => {
    expect(parseCmdline(Buffer.from('node\0/x/cli.js\0--flag\0'))).toEqual(['node', '/x/cli.js', '--flag']);
    expect(parseCmdline('')).toEqual([]);
    const env = 'A=1\0NERDR_AGENT=unknown\0HERDR_AGENT=claude\0HERDR_AGENT=codex\0XNERDR_AGENT=no';
    expect(parseEnviron(env)).toEqual({ NERDR_AGENT: 'unknown', HERDR_AGENT: 'claude' });
    expect(parseEnviron('HERDR_AGENT=amp')).toEqual({ HERDR_AGENT: 'amp' });
    expect(parseEnviron('XHERDR_AGENT=amp\0')).toEqual({});
  });

  it('ps output', () => {
    const text = '  100     1   100   200 bash            -bash\n  200   100   200   200 node            node /x/bin/codex --yolo\n  bad line\n';
    expect(parsePs(text)).toEqual([
      { pid: 100, ppid: 1, pgid: 100, tpgid: 200, comm: 'bash', argv: ['-bash'] },
      { pid: 200, ppid: 100, pgid: 200, tpgid: 200, comm: 'node', argv: ['node', '/x/bin/codex', '--yolo'] },
    ]);
    expect(identify(parsePs(text), 100).agent).toBe('codex');
  });
});

describe('procfs: the walk from the pane (a /proc of files)', () => {
  interface FakeProc { pid: number; ppid: number; pgid: number; tpgid: number; comm: string; argv: string[]; tasks: Record<number, number[]> | null }
  let root = '';
  afterEach(() => {
    vi.restoreAllMocks();
    if (root) rmSync(root, { recursive: true, force: true });
    root = '';
  });
  /** A /proc with these processes; `tasks` null: a kernel without children files. */
  const fakeProc = (procs: FakeProc[]): string => {
    root = mkdtempSync(path.join(tmpdir(), 'nerdr-proc-'));
    for (const p of procs) {
      const threads = p.tasks ? Object.keys(p.tasks).length : 1;
      // after "(comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice num_threads itrealvalue starttime
      const stat = `${p.pid} (${p.comm}) S ${p.ppid} ${p.pgid} ${p.ppid} 34816 ${p.tpgid} 0 0 0 0 0 0 0 0 0 20 0 ${threads} 0 ${1000 + p.pid}\n`;
      mkdirSync(path.join(root, String(p.pid), 'task', String(p.pid)), { recursive: true });
      writeFileSync(path.join(root, String(p.pid), 'stat'), stat);
      writeFileSync(path.join(root, String(p.pid), 'cmdline'), p.argv.join('\0') + '\0');
      for (const [tid, kids] of Object.entries(p.tasks ?? {})) {
        mkdirSync(path.join(root, String(p.pid), 'task', tid), { recursive: true });
        writeFileSync(path.join(root, String(p.pid), 'task', tid, 'children'), kids.map((k) => `${k} `).join(''));
      }
    }
    return root;
  };
  it("a one-thread process's children are read from its own file; a threaded one's from every thread's", async () => {
    const r = fakeProc([
      { pid: 100, ppid: 1, pgid: 100, tpgid: 200, comm: 'sh', argv: ['/bin/sh'], tasks: { 100: [200] } },
      // node: the agent's child hangs under its second thread
      { pid: 200, ppid: 100, pgid: 200, tpgid: 200, comm: 'node', argv: ['node', '/x/bin/codex'], tasks: { 200: [], 201: [300], 202: [] } },
      { pid: 300, ppid: 200, pgid: 200, tpgid: 200, comm: 'rg', argv: ['rg', 'x'], tasks: { 300: [] } },
    ]);
    const readdir = vi.spyOn(fs, 'readdirSync');
    const procs = await readPaneProcesses(100, { procRoot: r, environ: false });
    expect(procs.map((p) => p.pid)).toEqual([100, 200, 300]);
    expect(procs[1]!.argv).toEqual(['node', '/x/bin/codex']);
    // sh and rg have one thread each: no folder listed for them
    expect(readdir.mock.calls.map((c) => String(c[0]))).toEqual([`${r}/200/task`]);
  });

  it('a one-thread process without a children file (an old kernel): the /proc scan finds the foreground group', async () => {
    const r = fakeProc([
      { pid: 100, ppid: 1, pgid: 100, tpgid: 200, comm: 'sh', argv: ['/bin/sh'], tasks: null },
      { pid: 200, ppid: 100, pgid: 200, tpgid: 200, comm: 'node', argv: ['node', '/x/bin/codex'], tasks: null },
    ]);
    const procs = await readPaneProcesses(100, { procRoot: r, environ: false });
    expect(procs.map((p) => p.pid)).toEqual([100, 200]);
  });
});
