// `nerdr.restore`: the saved sessions the CLI loaded, restored here (so a Ctrl-C of the CLI
// leaves no window unchecked); an agent window may ask only for the plan. With dryRun: the plan, nothing done. Otherwise a stream: a
// `window` event per window once it is settled, `warning`s, then `done` with all of them.

import os from 'node:os';
import { onPath, planLaunch } from '../../integrations/plan.js';
import { planRestore } from '../../store/restore-plan.js';
import { dryRunResults, isDir, isFile, liveState, restoreSessions, type RestoreEnv } from '../restore.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, checkWhole } from './target.js';

export const restore = method('nerdr.restore', async (host: Pick<MethodHost, 'restore' | 'log' | 'bySecret' | 'control'>, p, ctx) => {
  // it makes windows no agent started and restarts exited ones: a plan only, for an agent window
  if (p.dryRun !== true) checkWhole(host, callerOf(host, p.caller), 'restore saved sessions: their windows would be no helpers of it, and exited windows would start again');
  const saved = p.sessions;
  const callerEnv = Object.fromEntries(Object.entries(p.callerEnv ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const warnings: ((m: string) => void)[] = [];
  const env: RestoreEnv = {
    callerEnv,
    home: callerEnv.HOME || os.homedir(),
    plan: (agent, args, cwd, hooks) => planLaunch(agent, args, cwd, hooks, (m) => env.warn(m)),
    onPath: (program) => onPath(program, callerEnv.PATH ?? process.env.PATH ?? ''),
    isDir,
    isFile,
    warn: (m) => {
      host.log('warn', `restore: ${m}`);
      for (const w of warnings) w(m);
    },
  };
  if (p.dryRun === true) {
    const plans = planRestore(saved, await liveState(host.restore));
    return { dryRun: true, sessions: plans.map((x) => ({ session: x.session, create: x.create })), windows: await dryRunResults(plans, env) };
  }
  const stream = ctx.stream();
  warnings.push((m) => void stream.event('warning', { message: m }));
  void restoreSessions(host.restore, env, saved, (r) => void stream.event('window', r)).then(
    (out) => {
      stream.event('done', out);
      stream.end();
    },
    (err: Error) => {
      host.log('error', `restore failed: ${err.message}`);
      stream.event('error', { message: err.message });
      stream.end();
    },
  );
  return { type: 'restore_started', sessions: saved.map((x) => x.session) };
});
