// Screens of the demo agent (manifests/demo.toml) and a family of windows, for the method tests.

import { hashSecret } from '../../../../src/supervisor/create.js';
import type { FakeTmux } from '../harness.js';

const RULE = '─'.repeat(80);
export const IDLE = ['nerdr demo agent', '', RULE, '❯', RULE, '  ? for shortcuts · demo agent'];
export const WORKING = ['nerdr demo agent', '', '✻ Thinking… (3s · esc to interrupt)', '', RULE, '❯', RULE];

/** The secret of "boss", an agent window. */
export const BOSS_SECRET = 'boss-secret';

/** "boss" (an agent window), "helper" (which boss started) and "other" (a person's), all working. */
export function family(t: FakeTmux): void {
  t.addPane({ name: 'boss', id: 'boss', secretHash: hashSecret(BOSS_SECRET), screen: WORKING });
  t.addPane({ name: 'helper', options: new Map([['@nerdr_lineage', 'boss']]), screen: WORKING });
  t.addPane({ name: 'other', screen: WORKING });
}

/** The pane shows these rows now (a clear, then the rows). */
export function show(channel: { output(pane: string, text: string): void }, pane: string, rows: string[]): void {
  channel.output(pane, '\x1b[2J\x1b[H' + rows.join('\r\n'));
}
