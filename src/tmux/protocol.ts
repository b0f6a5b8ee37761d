// The control-mode protocol as a pure parser: bytes in, typed events out.
// Lines are split on \n only and kept as bytes; nothing here decodes a whole line as UTF-8
// except notification arguments, which tmux writes as text.

import { decodeOctal } from './decode.js';

export interface Block {
  time: string;
  number: string;
  /** '1' = answers a line we sent; '0' = tmux's own (initial attach, hooks). */
  flags: string;
  error: boolean;
  lines: Buffer[];
}

export type ProtocolEvent =
  | { type: 'output'; pane: string; data: Buffer; ageMs: number | undefined }
  | { type: 'block'; block: Block }
  | { type: 'notification'; name: string; args: string }
  | { type: 'exit'; reason: string };

const BEGIN = Buffer.from('%begin ');
const OUTPUT = Buffer.from('%output ');
const EXT_OUTPUT = Buffer.from('%extended-output ');
const SEP = Buffer.from(' : ');

/** Compared byte by byte in JS: the prefixes are a few bytes, and Buffer#compare is a call into C++ (a profile of 101 quiet windows put it beside the parser's own time). */
function startsWith(line: Buffer, prefix: Buffer): boolean {
  const n = prefix.length;
  if (line.length < n) return false;
  for (let i = 0; i < n; i++) if (line[i] !== prefix[i]) return false;
  return true;
}

export class LineSplitter {
  private rest: Buffer | null = null;

  /** Calls onLine for every complete line in chunk (without its \n). */
  push(chunk: Buffer, onLine: (line: Buffer) => void): void {
    const buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = null;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      if (nl < 0) break;
      onLine(buf.subarray(start, nl));
      start = nl + 1;
    }
    if (start < buf.length) this.rest = Buffer.from(buf.subarray(start));
  }
}

/**
 * Turns lines into events. `inBlockNotification` decides whether a line inside an open
 * block is really a notification (tmux 3.3a prints %pause/%continue inside the reply block
 * of `refresh-client -A`); it gets the block so far, to tell that reply from others.
 */
export class ProtocolParser {
  private open: Block | null = null;
  private endLine = '';
  private errorLine = '';

  constructor(
    private readonly emit: (event: ProtocolEvent) => void,
    private readonly inBlockNotification: (line: Buffer, block: Block) => boolean = () => false,
  ) {}

  line(line: Buffer): void {
    const block = this.open;
    if (block) {
      if (line.length < 64 && line[0] === 0x25 /* % */) {
        const text = line.toString('latin1');
        if (text === this.endLine || text === this.errorLine) {
          block.error = text === this.errorLine;
          this.open = null;
          this.emit({ type: 'block', block });
          return;
        }
        if (this.inBlockNotification(line, block)) {
          this.notification(text);
          return;
        }
      }
      block.lines.push(Buffer.from(line));
      return;
    }
    if (startsWith(line, OUTPUT)) {
      const sp = line.indexOf(0x20, OUTPUT.length);
      if (sp < 0) return;
      const pane = line.toString('latin1', OUTPUT.length, sp);
      this.emit({ type: 'output', pane, data: decodeOctal(line, sp + 1), ageMs: undefined });
      return;
    }
    if (startsWith(line, EXT_OUTPUT)) {
      const sp = line.indexOf(0x20, EXT_OUTPUT.length);
      if (sp < 0) return;
      const pane = line.toString('latin1', EXT_OUTPUT.length, sp);
      const sep = line.indexOf(SEP, sp);
      if (sep < 0) return;
      const age = Number.parseInt(line.toString('latin1', sp + 1, sep).split(' ')[0] ?? '', 10);
      this.emit({ type: 'output', pane, data: decodeOctal(line, sep + SEP.length), ageMs: Number.isFinite(age) ? age : undefined });
      return;
    }
    if (startsWith(line, BEGIN)) {
      const [, time = '', number = '', flags = ''] = line.toString('latin1').split(' ');
      this.open = { time, number, flags, error: false, lines: [] };
      this.endLine = `%end ${time} ${number} ${flags}`;
      this.errorLine = `%error ${time} ${number} ${flags}`;
      return;
    }
    if (line[0] === 0x25) this.notification(line.toString('utf8'));
  }

  private notification(text: string): void {
    const sp = text.indexOf(' ');
    const name = (sp < 0 ? text : text.slice(0, sp)).slice(1);
    const args = sp < 0 ? '' : text.slice(sp + 1);
    if (name === 'exit') this.emit({ type: 'exit', reason: args });
    else this.emit({ type: 'notification', name, args });
  }
}
