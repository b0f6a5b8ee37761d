// `nerdr web`: the inbox as one page in a browser, served until Ctrl-C (src/web/; docs/web.md).
// The URL with its token is printed, and only printed: it is in no file and no environment an
// agent window could read.

import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { loadConfig, webListenProblem, webPortProblem } from '../config.js';
import { configDir } from '../paths.js';
import { callerSecret, ensureSupervisor, tmuxSocket } from './context.js';
import { isLoopback } from '../web/security.js';

interface WebOptions {
  port?: string;
  listen?: string;
  json?: boolean;
}

/** An agent window may not serve the inbox: the page answers every agent's prompts, its own helpers' and its parent's alike. */
export function refuseAgentWindow(env: NodeJS.ProcessEnv = process.env): void {
  if (callerSecret(env)) throw new NerdrError('nerdr web serves a person, not an agent: this shell is an agent window of nerdr (NERDR_TAB is set)', 'run `nerdr web` from your own shell, outside the agents\' windows', { code: 'not_permitted' });
}

/** The port and address to serve on: the flags, else `[web]` in config.toml, else a free port on 127.0.0.1. */
export function webAddress(opts: WebOptions, config: { port: number | null; listen: string }): { port: number; listen: string } {
  const port = opts.port !== undefined ? (/^\d+$/.test(opts.port) ? Number(opts.port) : NaN) : (config.port ?? 0);
  const portProblem = webPortProblem(port);
  if (portProblem) throw new NerdrError(`--port ${portProblem.replace(/\(got .*\)$/, `(got ${JSON.stringify(opts.port)})`)}`, undefined, { code: 'invalid_option' });
  const listen = opts.listen ?? config.listen;
  const listenProblem = webListenProblem(listen);
  if (listenProblem) throw new NerdrError(`--listen ${listenProblem}`, undefined, { code: 'invalid_option' });
  return { port, listen };
}

/** A failed listen as the user reads it, with the fix. */
export function listenError(err: NodeJS.ErrnoException, listen: string, port: number): NerdrError {
  if (err.code === 'EADDRINUSE') return new NerdrError(`port ${port} on ${listen} is in use by another program`, undefined, { code: 'port_in_use' });
  if (err.code === 'EADDRNOTAVAIL') return new NerdrError(`${listen} is not an address of this machine`, undefined, { code: 'listen_failed' });
  if (err.code === 'EACCES') return new NerdrError(`not permitted to listen on ${listen} port ${port} (ports below 1024 need privileges)`, 'choose a port from 1024 up with --port, or 0 for a free one', { code: 'listen_failed' });
  return new NerdrError(`cannot listen on ${listen} port ${port}: ${err.message}`, undefined, { code: 'listen_failed' });
}

export function register(program: Command): void {
  program
    .command('web')
    .description('serve the inbox as one page in a browser (on 127.0.0.1; live; answer, snooze, cancel), until Ctrl-C; prints its URL with a secret token')
    .option('--port <n>', 'the port (default: `[web] port` in config.toml, else a free one)')
    .option('--listen <address>', 'the address (default: `[web] listen`, else 127.0.0.1); any other than loopback is reachable from the network: see docs/web.md')
    .option('--json', 'print {url, port, listen} as one JSON line once serving')
    .action(async (opts: WebOptions, cmd: Command) => {
      refuseAgentWindow();
      const config = loadConfig(configDir()).config;
      const { port, listen } = webAddress(opts, config.web);
      const socketFile = await ensureSupervisor(await tmuxSocket(cmd));
      const { startWebServer } = await import('../web/server.js');
      const { supervisorSource, withFleet } = await import('../web/source.js');
      let source = supervisorSource(socketFile);
      // the fleet's hosts' rows beside this machine's, each acted on by its host's own nerdr
      if (Object.keys(config.fleet.hosts).length > 0) {
        const { captureRemote, hostInboxes } = await import('./fleet.js');
        const { request } = await import('../supervisor/socket/index.js');
        const fleet = config.fleet;
        source = withFleet(source, {
          hosts: async () => ((await request(socketFile, 'nerdr.fleet', {}, { timeoutMs: 5000 })) as { hosts: { name: string; state: string }[] }).hosts.filter((h) => h.state === 'connected' && fleet.hosts[h.name]).map((h) => h.name),
          rows: async (names) => (await hostInboxes(fleet, names)).rows,
          run: (host, args) => (fleet.hosts[host] ? captureRemote(fleet, fleet.hosts[host], args) : Promise.resolve({ code: 1, stdout: '', stderr: `nerdr: no fleet host "${host}"` })),
        });
      }
      const server = await startWebServer({ source, listen, port, log: (l) => process.stderr.write(`${l}\n`) }).catch((err: NodeJS.ErrnoException) => {
        throw typeof err.code === 'string' ? listenError(err, listen, port) : err;
      });
      if (!isLoopback(listen)) {
        process.stderr.write(`nerdr web: WARNING: listening on ${listen}, not loopback: anyone who can reach this address and has the URL's token can answer your agents (docs/web.md, "Security")\n`);
      }
      if (opts.json) process.stdout.write(JSON.stringify({ url: server.url, port: server.port, listen: server.listen }) + '\n');
      else {
        process.stdout.write(`nerdr web: open ${server.url}\n`);
        process.stdout.write(`  the token in it is the only key: it is written nowhere else; from a phone: docs/web.md (ssh -L ${server.port}:127.0.0.1:${server.port} THIS-HOST)\n  Ctrl-C stops\n`);
      }
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(s, stop);
          void server.close().then(resolve);
        };
        for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, stop);
      });
    });
}
