// The supervisor's own socket methods, registered: one file each in src/supervisor/methods/,
// their params in src/protocol/params.ts. This file only routes.

import type { SocketServer } from './socket/index.js';
import { handlerOf, type Method } from './methods/method.js';

/** Serves each method on the socket with this host; returns what unregisters them all. */
export function registerMethods<H>(server: Pick<SocketServer, 'handle'>, methods: readonly Method<H>[], host: H): () => void {
  const off = methods.map((m) => server.handle(m.name, handlerOf(m, host)));
  return () => off.forEach((f) => f());
}
