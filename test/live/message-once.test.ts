// A message is typed in at most once (issue 24, "Lights that never lie"), real CLI, real tmux.
// The supervisor is kill -9'd right after it pasted a message into an agent that never responds
// (helpers/fake-agent.js, identified as demo, logging every byte it reads): tmux revives it, and
// the new supervisor must not type the message again, and follows its turn as the old one would
// have (none comes: it stalls), whether or not it recorded tmux's answer to the paste before it
// died: the pane's @nerdr_typed, set on the paste's own line, says the paste ran. (A kill
// before the line reached tmux, and a paste whose answer was lost: test/unit/supervisor/
// messages.test.ts, whose fake tmux can hold or drop that line.) Then `nerdr restore` of a saved
// session that still lists that message (a save older than its delivery) queues it again only
// if its id was never typed in.
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, pidAlive, startLiveEnv, tmuxAvailable, waitFor, type AgentRowLike, type LiveEnv } from './helpers/env.js';
import type { SavedSession } from '../../src/store/sessions.js';
import type { Receipt } from '../../src/store/queue.js';
import { serverFiles } from '../../src/paths.js';

const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');
const DEMO_IDLE = path.join(REPO_ROOT, 'test', 'fixtures', 'screens', 'demo', '01-idle.ansi.txt');
/** Hostile on purpose: quotes, a format, a variable, a command end, a line break, UTF-8. */
const TEXT = `once "only" #{pane_id} $HOME ; echo twice\nsecond line ✓`;

describe.skipIf(!tmuxAvailable)('a message is typed in at most once: live', () => {
  let env: LiveEnv;
  const log = (name: string): string => path.join(env.home, `${name}-input.log`);
  const deafCmd = (name: string): string => `NERDR_AGENT=demo FAKE_AGENT_SCREEN='${DEMO_IDLE}' FAKE_AGENT_INPUT_LOG='${log(name)}' '${process.execPath}' '${FAKE}'; exit`;
  /** The bracketed pastes the fake read, in order. */
  const arrived = (name: string): string[] =>
    existsSync(log(name)) ? [...readFileSync(log(name), 'utf8').matchAll(/\x1b\[200~([\s\S]*?)\x1b\[201~/g)].map((x) => x[1]!) : [];
  const row = async (name: string): Promise<AgentRowLike | undefined> => (await env.lsJson()).find((a) => a.name === name);
  const status = async (id: string): Promise<{ receipt: Receipt; name: string | null }> => {
    const r = await env.nerdr('send', '--status', id, '--json');
    if (r.code !== 0) throw new Error(`send --status: ${r.stderr}`);
    return JSON.parse(r.stdout) as { receipt: Receipt; name: string | null };
  };

  async function deaf(name: string): Promise<string> {
    const r = await env.nerdr('new', '-d', '--name', name, '--cmd', deafCmd(name));
    expect(r.code, r.stderr).toBe(0);
    await waitFor(async () => {
      const a = await row(name);
      return a?.agent === 'demo' && ['idle', 'done'].includes(a.state);
    }, { timeoutMs: 25_000, what: `${name}: the deaf fake identified as demo and idle` });
    return r.stdout.trim();
  }

  let typedId = '';
  const serverLog = (): string => serverFiles(env.socketPath, env.env).log;

  beforeAll(async () => {
    env = await startLiveEnv();
  }, 60_000);

  afterAll(async () => {
    await env?.cleanup();
  });

  it('kill -9 right after a paste: the revived supervisor does not type it again, and follows its turn (none comes: it stalls)', async () => {
    await deaf('deaf');
    const killed = (await env.supervisorPid())!;
    expect(killed).toBeGreaterThan(0);
    const sent = await env.nerdrWith(['send', 'deaf', '--json'], { input: TEXT });
    expect(sent.code, sent.stderr).toBe(0);
    typedId = (JSON.parse(sent.stdout) as { id: string }).id;
    // the agent never responds: the supervisor waits 5 s for its turn; it dies as soon as the
    // paste is in (tmux's answer to it may not be recorded yet: the pane's @nerdr_typed says)
    await waitFor(() => arrived('deaf').length === 1, { intervalMs: 5, what: 'the paste in the fake' });
    process.kill(killed, 'SIGKILL');
    await waitFor(() => !pidAlive(killed), { what: 'the old supervisor gone' });
    // no command starts one: tmux revives it (supervisor status only asks)
    const revived = await waitFor(async () => {
      const pid = await env.supervisorPid();
      return pid !== null && pid !== killed ? pid : undefined;
    }, { timeoutMs: 5000, what: 'a revived supervisor' });
    expect(revived).not.toBe(killed);
    // the new supervisor found the message marked as being typed, with tmux's answer to the paste
    // recorded or the pane's @nerdr_typed naming it: it is in, so it is not typed again; its turn is followed as the old one would
    // have, and the deaf agent gives none: it stalls like any message that gets no response
    const r = await waitFor(async () => {
      const s = await status(typedId);
      return s.receipt.stalledAt !== null ? s : undefined;
    }, { timeoutMs: 15_000, what: 'the receipt stalled by the revived supervisor' });
    expect(r.name).toBe('deaf');
    expect(r.receipt.pastedAt).not.toBeNull();
    expect(r.receipt.startedAt).toBeNull();
    expect((await row('deaf'))!.queue).toBe(0);
    expect(arrived('deaf')).toEqual([TEXT]);
    expect(readFileSync(serverLog(), 'utf8')).toMatch(/was typed in by the supervisor before, which stopped before its turn/);
  }, 90_000);

  it('restore of a save that still lists a message typed since queues only the one never typed', async () => {
    expect(typedId).not.toBe('');
    const file = path.join(env.home, 'stale-save.json');
    const saved: SavedSession = {
      version: 1,
      server: env.socketPath,
      session: 'again',
      savedAt: new Date().toISOString(),
      windows: [{
        agent: 'unknown', name: 'restored', index: 1, cwd: env.home, args: [], argv: ['/bin/sh', '-c', deafCmd('restored')], conversationId: null, conversationFrom: null,
        queue: [{ id: typedId, text: TEXT, queuedAt: 1 }, { id: '0a1b2c3d4e5f', text: 'never typed before', queuedAt: 2 }],
      }],
    };
    writeFileSync(file, JSON.stringify(saved));
    const r = await env.nerdrWith(['restore', '--from', file, '--json'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { windows: { name: string; action: string; requeued: number }[] };
    expect(out.windows).toEqual([expect.objectContaining({ name: 'restored', action: 'created', requeued: 1 })]);
    expect(r.stderr).toMatch(new RegExp(`a saved message \\(${typedId}\\) for restored was not queued again: it was typed in already`));
    await waitFor(() => arrived('restored').length === 1, { timeoutMs: 25_000, what: 'the one message typed in the restored window' });
    expect(arrived('restored')).toEqual(['never typed before']);
    // the typed one's receipt stays with the window it was typed into
    expect((await status(typedId)).name).toBe('deaf');
  }, 90_000);
});
