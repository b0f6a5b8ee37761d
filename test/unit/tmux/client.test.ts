// ControlClient against a real tmux (private server): FIFO matching of replies to lines,
// an error cutting a line short, a parse error answering a whole line, %output bytes,
// commands queued before the attach, and a clean close.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient, replyText, type Reply } from '../../../src/tmux/client.js';
import { command } from '../../../src/tmux/quote.js';
import { alive, startServer, tmuxAvailable, waitFor, type PrivateServer } from './helpers.js';

const texts = (rs: Reply[]): string[] => rs.map(replyText);

describe.skipIf(!tmuxAvailable)('ControlClient on real tmux', () => {
  let srv: PrivateServer;
  let client: ControlClient;
  const clients: ControlClient[] = [];

  beforeAll(async () => {
    srv = await startServer();
    client = new ControlClient(srv.socketPath, 'user');
    clients.push(client);
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await srv?.stop();
  });

  it('commands sent before the attach finished are held and answered in order', async () => {
    // the constructor has just run; nothing is attached yet
    const a = client.send([command('display', '-p', 'first')]);
    const b = client.send([command('display', '-p', 'second'), command('display', '-p', 'third')]);
    expect(texts(await a)).toEqual(['first']);
    expect(texts(await b)).toEqual(['second', 'third']);
  });

  it('many lines in flight at once each get their own replies (FIFO)', async () => {
    const promises = Array.from({ length: 50 }, (_, i) =>
      client.send(Array.from({ length: (i % 4) + 1 }, (_, j) => command('display', '-p', `l${i}c${j}`))),
    );
    const results = await Promise.all(promises);
    results.forEach((rs, i) => {
      expect(rs.map((r) => r.ok)).toEqual(Array.from({ length: (i % 4) + 1 }, () => true));
      expect(texts(rs)).toEqual(Array.from({ length: (i % 4) + 1 }, (_, j) => `l${i}c${j}`));
    });
  });

  it('sendWith calls back synchronously in parse order (a later line is not parsed before)', async () => {
    const order: string[] = [];
    await new Promise<void>((resolve) => {
      client.sendWith([command('display', '-p', 'A')], () => order.push('A'));
      client.sendWith([command('display', '-p', 'B')], () => {
        order.push('B');
        resolve();
      });
    });
    expect(order).toEqual(['A', 'B']);
  });

  it('an error cuts the line short: later commands are skipped, and the next line still matches', async () => {
    const bad = client.send([command('display', '-p', 'a'), command('select-window', '-t', '=nosuch:'), command('display', '-p', 'c')]);
    const next = client.send([command('display', '-p', 'next')]);
    const rs = await bad;
    expect(rs).toHaveLength(3);
    expect(rs[0]).toMatchObject({ ok: true, skipped: false });
    expect(replyText(rs[0]!)).toBe('a');
    expect(rs[1]).toMatchObject({ ok: false, skipped: false });
    expect(replyText(rs[1]!)).toMatch(/can't find session/);
    expect(rs[2]).toMatchObject({ ok: false, skipped: true });
    expect(texts(await next)).toEqual(['next']);
  });

  it('the skipped command really did not run', async () => {
    await client.send([command('set-option', '-g', '@nerdr_t', 'before')]);
    const rs = await client.send([command('select-window', '-t', '=nosuch:'), command('set-option', '-g', '@nerdr_t', 'after')]);
    expect(rs.map((r) => [r.ok, r.skipped])).toEqual([
      [false, false],
      [false, true],
    ]);
    expect(await client.run(command('show-options', '-gv', '@nerdr_t'))).toBe('before');
  });

  it('a parse error answers the whole line once; every command is reported failed and the FIFO holds', async () => {
    const bad = client.send([command('display', '-p', 'a'), 'bogus-command', command('display', '-p', 'c')]);
    const next = client.send([command('display', '-p', 'after')]);
    const rs = await bad;
    expect(rs).toHaveLength(3);
    expect(rs[0]).toMatchObject({ ok: false, skipped: false });
    expect(replyText(rs[0]!)).toMatch(/parse error: unknown command: bogus-command/);
    expect(rs.slice(1).map((r) => [r.ok, r.skipped])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(texts(await next)).toEqual(['after']);
  });

  it('a word starting with % unquoted is a parse error (why everything is quoted)', async () => {
    const [r] = await client.send(['display -p %0:x']);
    expect(r!.ok).toBe(false);
    expect(replyText(r!)).toMatch(/parse error/);
    expect(await client.run(command('display', '-p', '%0:x'))).toBe('%0:x');
  });

  it('run() returns the text and rejects with tmux\'s own words', async () => {
    expect(await client.run(command('display', '-p', 'ok'))).toBe('ok');
    await expect(client.run(command('show-options', '-w', '-t', '@99999'))).rejects.toThrow(/no such window/);
  });

  it('a multi-line reply keeps its lines, including empty ones and trailing spaces', async () => {
    const [r] = await client.send([command('display', '-p', 'x  \n\ny')]);
    expect(r!.lines.map((l) => l.toString())).toEqual(['x  ', '', 'y']);
  });

  it('a command holding a line break is refused before it reaches tmux', () => {
    expect(() => client.sendWith(['display -p a\ndisplay -p b'], () => undefined)).toThrow(/line break/);
  });

  it('an empty line list answers at once and sends nothing (an empty line would detach)', async () => {
    expect(await client.send([])).toEqual([]);
    expect(await client.run(command('display', '-p', 'still here'))).toBe('still here');
  });

  it('%output of a pane in the attached session arrives as the exact bytes, UTF-8 and escapes included', async () => {
    const pane = (await client.run(command('display', '-p', '-t', '=user:', '#{pane_id}'))).trim();
    const chunks: Buffer[] = [];
    const onOut = (p: string, data: Buffer): void => {
      if (p === pane) chunks.push(data);
    };
    client.on('output', onOut);
    try {
      // printf inside the pane: a backslash, an ESC sequence, UTF-8, a marker to wait for
      await client.run(command('send-keys', '-t', pane, '-l', "printf 'S\\134\\033[1mB\\033[0m🦊E\\n'"));
      await client.run(command('send-keys', '-t', pane, 'Enter'));
      const want = Buffer.from('S\\\x1b[1mB\x1b[0m🦊E', 'utf8');
      await waitFor('the printf output in %output', () => Buffer.concat(chunks).includes(want));
    } finally {
      client.off('output', onOut);
    }
  });

  it('notifications are emitted by name (window-add / window-close / window-renamed)', async () => {
    const seen: string[] = [];
    const on = (name: string, args: string): void => void seen.push(`${name} ${args}`);
    client.on('notification', on);
    try {
      const id = (await client.run(command('new-window', '-d', '-t', '=user:', '-P', '-F', '#{window_id}', 'sleep 30'))).trim();
      await client.run(command('rename-window', '-t', id, 'renamed🦊'));
      await client.run(command('kill-window', '-t', id));
      await waitFor('window notifications', () =>
        // tmux 3.3a reports kill-window of a window in our own session as unlinked-window-close
        seen.includes(`window-add ${id}`) && seen.includes(`window-renamed ${id} renamed🦊`) && seen.some((l) => /^(unlinked-)?window-close /.test(l) && l.endsWith(` ${id}`)),
      );
    } finally {
      client.off('notification', on);
    }
  });

  it('tmux\'s own blocks (flags 0, e.g. a hook) are not taken for replies', async () => {
    await client.run(command('set-hook', '-g', 'after-new-window', 'display -p hooked'));
    try {
      const rs = await client.send([command('new-window', '-d', '-t', '=user:', '-P', '-F', '#{window_id}', 'sleep 30'), command('display', '-p', 'mine')]);
      expect(rs[0]!.ok).toBe(true);
      expect(replyText(rs[1]!)).toBe('mine');
      expect(await client.run(command('display', '-p', 'then'))).toBe('then');
      await client.run(command('kill-window', '-t', replyText(rs[0]!).trim()));
    } finally {
      await client.run(command('set-hook', '-gu', 'after-new-window'));
    }
  });

  it('close() detaches cleanly; later sends answer "closed" without throwing', async () => {
    const c = new ControlClient(srv.socketPath, 'user');
    clients.push(c);
    expect(await c.run(command('display', '-p', 'hi'))).toBe('hi');
    const pid = c.pid!;
    await c.close();
    expect(c.isClosed).toBe(true);
    await waitFor('the control client process to exit', () => !alive(pid));
    const [r] = await c.send([command('display', '-p', 'x')]);
    expect(r).toMatchObject({ ok: false, skipped: true });
    // the server is still fine
    expect((await srv.tmux('display', '-p', 'alive')).trim()).toBe('alive');
  });

  it('a line in flight when the server dies is still answered, exit is emitted, later lines fail', async () => {
    const other = await startServer();
    try {
      const c = new ControlClient(other.socketPath, 'user');
      clients.push(c);
      expect(await c.run(command('display', '-p', 'up'))).toBe('up');
      const exited = new Promise<string>((resolve) => c.once('exit', resolve));
      const inFlight = c.send([command('wait-for', 'nerdr-test-never-signalled')]);
      await other.tmux('kill-server');
      // the blocked wait-for is answered (or failed) as the server goes; either way it is answered
      expect(await inFlight).toHaveLength(1);
      await exited;
      expect(c.isClosed).toBe(true);
      const [r] = await c.send([command('display', '-p', 'x')]);
      expect(r).toMatchObject({ ok: false, skipped: true });
    } finally {
      await other.stop();
    }
  });

  it('refuses commands that queue further commands (their extra replies would break matching)', () => {
    const c = new ControlClient(srv.socketPath, 'user');
    clients.push(c);
    expect(() => c.sendWith([command('if-shell', '-F', '1', 'display -p x')], () => undefined)).toThrow(/queues more commands/);
    expect(() => c.sendWith([command('run-shell', 'true')], () => undefined)).toThrow(/queues more commands/);
    // an if-shell inside an argument (a hook's command) is only text
    expect(() => c.sendWith([command('set-hook', '-t', 'user:', 'client-attached', "if-shell -F 1 ''")], () => undefined)).not.toThrow();
  });

  it('attaching to a session that does not exist ends with exit and fails what was queued', async () => {
    const c = new ControlClient(srv.socketPath, 'no-such-session');
    clients.push(c);
    const [r] = await c.send([command('display', '-p', 'x')]);
    expect(r!.ok).toBe(false);
    expect(await c.exited).not.toBe(0);
  });
});
