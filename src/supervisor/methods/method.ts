// The shape of one socket method: its name (src/protocol/params.ts holds what it takes), and a
// function of the part of the supervisor it needs, the checked params and the request.

import { checkParams, type MethodName, type Params } from '../../protocol/index.js';
import { RpcError } from '../socket/errors.js';
import type { Handler, RequestContext } from '../socket/index.js';

export interface Method<H> {
  readonly name: MethodName;
  /** Checks the params (`invalid_params` naming the fault and what the method takes), then runs. */
  run(host: H, params: unknown, ctx: RequestContext): unknown;
}

export function method<M extends MethodName, H>(name: M, run: (host: H, params: Params<M>, ctx: RequestContext) => unknown): Method<H> {
  return {
    name,
    run: (host, params, ctx) => {
      const checked = checkParams(name, params);
      if (!checked.ok) throw new RpcError('invalid_params', checked.message, false, checked.fix);
      return run(host, checked.params, ctx);
    },
  };
}

/** The socket's handler for a method served by this host. */
export function handlerOf<H>(m: Method<H>, host: H): Handler {
  return (params, ctx) => m.run(host, params, ctx);
}
