// Public surface of the pane mirror (see docs/mirror.md).
export { Mirror, type MirrorOptions } from './mirror.js';
export {
  SNAPSHOT_DISPLAY_FORMAT,
  buildSnapshotCommand,
  buildSeed,
  decodeOctal,
  parseDisplayLine,
  quoteTmuxArg,
  type PaneDisplayState,
  type ReplyBlock,
  type SeedResult,
} from './seed.js';
export { OscScanner, sanitizeOscText, OSC_MAX_BODY, OSC_MAX_CHARS } from './osc.js';
export { wcwidth, useTmuxWidths } from './wcwidth.js';
