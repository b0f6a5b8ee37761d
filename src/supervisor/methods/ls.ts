// `nerdr.ls`: every watched window's row.

import type { MethodHost } from './host.js';
import { method } from './method.js';

export const ls = method('nerdr.ls', (host: Pick<MethodHost, 'windows' | 'row'>) => ({ agents: host.windows().map((a) => host.row(a)) }));
