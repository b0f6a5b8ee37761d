// A socket method called as the socket calls it, on the supervisor of the fake-channel harness
// (../harness.ts): the params checked, then run with a request whose stream lines are kept.

import { DEFAULT_AGENT_LIMITS, type AgentLimits, type ControlScope } from '../../../../src/config.js';
import type { RequestContext, StreamHandle } from '../../../../src/supervisor/socket/index.js';
import { supervisorHost, type MethodHost } from '../../../../src/supervisor/methods/host.js';
import type { Method } from '../../../../src/supervisor/methods/method.js';
import type { Rig } from '../harness.js';

export const CONFIG_FILE = '/home/test/.config/nerdr/config.toml';

/** The rig's supervisor as its methods see it; `[agents] control` is `scope`, the limits `limits` (no config file is read). */
export function hostOf(rig: Rig, scope: ControlScope = 'own', limits: Partial<AgentLimits> = {}): MethodHost {
  return supervisorHost(rig.sup, { socketPath: '/run/nerdr-test.sock', control: () => ({ scope, limits: { ...DEFAULT_AGENT_LIMITS, ...limits }, path: CONFIG_FILE }) });
}

export interface FakeRequest {
  ctx: RequestContext;
  /** Lines the method pushed on its stream, in order. */
  lines: unknown[];
  /** Whether the method asked for a stream, and whether it ended it. */
  streamed(): boolean;
  ended(): boolean;
  /** The client goes away. */
  hangUp(): void;
}

export function fakeRequest(method = 'test'): FakeRequest {
  const ac = new AbortController();
  const lines: unknown[] = [];
  let stream: StreamHandle | null = null;
  let ended = false;
  const handle = (): StreamHandle => ({
    send: (m) => (ac.signal.aborted ? false : (lines.push(m), true)),
    event: (name, data) => (ac.signal.aborted ? false : (lines.push({ event: name, data }), true)),
    end: () => {
      ended = true;
      ac.abort();
    },
    pending: () => 0,
    drained: (fn) => queueMicrotask(fn),
    get closed() {
      return ac.signal.aborted;
    },
    signal: ac.signal,
  });
  return {
    ctx: { id: 'test:1', method, signal: ac.signal, stream: () => (stream ??= handle()) },
    lines,
    streamed: () => stream !== null,
    ended: () => ended,
    hangUp: () => ac.abort(),
  };
}

/** Calls a method; a synchronous throw becomes a rejection, as the socket answers both alike. */
export async function call<H>(m: Method<H>, host: H, params: unknown, req: FakeRequest = fakeRequest(m.name)): Promise<any> {
  return m.run(host, params, req.ctx);
}
