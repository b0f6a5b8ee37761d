// The web page's fleet rows: each connected host's inbox beside this machine's, and a fleet row
// acted on by that host's own nerdr (its prompt check; exit 7 is "the prompt changed").
import { describe, expect, it } from 'vitest';
import { SourceError, withFleet, type FleetDeps, type InboxSource } from '../../../src/web/source.js';
import { blockedRow } from './fake-source.js';

function local(): InboxSource & { answered: unknown[] } {
  const answered: unknown[] = [];
  return {
    answered,
    inbox: async () => [blockedRow({ id: 'pL', since: 2000 })],
    answer: async (p) => {
      answered.push(p);
      return { target: p.target, prompt: p.prompt, option: null, keys: ['Enter'] };
    },
    snooze: async (p) => ({ id: p.id, until: 1 }),
    cancel: async () => ({}),
    follow: () => () => undefined,
  };
}

describe('withFleet', () => {
  it("lists the hosts' rows beside this machine's, oldest first, once followed", async () => {
    const deps: FleetDeps = { hosts: async () => ['box'], rows: async (h) => h.map((host) => blockedRow({ id: 'pR', since: 1000, host })), run: async () => ({ code: 0, stdout: '{}', stderr: '' }) };
    const src = withFleet(local(), deps);
    let changed = 0;
    const stop = src.follow(() => changed++);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect((await src.inbox()).map((r) => [r.id, r.host])).toEqual([['pR', 'box'], ['pL', null]]);
    expect(changed).toBeGreaterThan(0);
    stop();
  });

  it("a fleet row's answer is the host's own nerdr answer; its exit 7 is the prompt changed; a local row stays local", async () => {
    const runs: [string, string[]][] = [];
    let code = 0;
    const deps: FleetDeps = {
      hosts: async () => [],
      rows: async () => [],
      run: async (host, args) => {
        runs.push([host, args]);
        return code === 0 ? { code, stdout: JSON.stringify({ target: '@3', prompt: 'pR', option: { n: 1, label: 'Yes', kind: 'approve' }, keys: ['Enter'] }), stderr: '' } : { code, stdout: '', stderr: 'nerdr: the prompt changed: api (@3) now shows prompt p2\n  fix: …\n' };
      },
    };
    const l = local();
    const src = withFleet(l, deps);
    expect((await src.answer({ target: '@3', prompt: 'pR', choice: 'approve', host: 'box' })).option?.n).toBe(1);
    expect(runs[0]).toEqual(['box', ['answer', '@3', 'approve', '--prompt', 'pR', '--json']]);
    code = 7;
    await expect(src.answer({ target: '@3', prompt: 'pR', choice: 1, host: 'box' })).rejects.toMatchObject({ code: 'prompt_changed', message: 'box: the prompt changed: api (@3) now shows prompt p2' });
    await expect(src.answer({ target: '@3', prompt: 'pR', choice: 1, host: 'box' })).rejects.toBeInstanceOf(SourceError);
    await src.answer({ target: '@1', prompt: 'pL', choice: 'deny' });
    expect(l.answered).toEqual([{ target: '@1', prompt: 'pL', choice: 'deny' }]);
    code = 0;
    await src.snooze({ id: 'pR', forMs: 900_000, host: 'box' }).catch(() => undefined);
    expect(runs.at(-1)).toEqual(['box', ['inbox', 'snooze', 'pR', '900s', '--json']]);
  });
});
