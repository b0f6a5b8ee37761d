// @xterm/headless ships CommonJS only (its package.json has no "exports" and no "type"), so
// under NodeNext ESM the module object arrives as the default import. Named imports would
// fail at run time in compiled dist; go through the default object instead.
import xterm from '@xterm/headless';
import type { Terminal as TerminalType, ITerminalOptions, ITerminalInitOnlyOptions, IBufferCell, IBufferLine } from '@xterm/headless';

export const Terminal: typeof TerminalType = xterm.Terminal;
export type Terminal = TerminalType;
export type { ITerminalOptions, ITerminalInitOnlyOptions, IBufferCell, IBufferLine };
