// Minimal tmux control-mode reader for the mirror's live test (the real client lives in
// src/tmux and is written separately). Splits stdout on \n as bytes, decodes %output, and
// collects %begin/%end blocks, answering flags-1 blocks in FIFO order.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { decodeOctal } from '../../../src/mirror/seed.js';

export interface Block {
  ok: boolean;
  lines: Buffer[];
}

export type OutputListener = (pane: string, data: Buffer) => void;

export class MiniControlClient {
  readonly proc: ChildProcessWithoutNullStreams;
  private rest: Buffer = Buffer.alloc(0);
  private block: { head: string; lines: Buffer[]; flags: string } | null = null;
  private waiting: ((b: Block) => void)[] = [];
  /** Called for every %output, in stream order, with the line's position relative to blocks. */
  onOutput: OutputListener = () => {};
  /** Called when a flags-1 block opens (before its lines are read). */
  onBlockStart: () => void = () => {};
  readonly exited: Promise<number | null>;

  constructor(tmuxArgs: string[], env: NodeJS.ProcessEnv) {
    this.proc = spawn('tmux', [...tmuxArgs, '-C', 'attach-session', '-t', 't'], { env, stdio: 'pipe' });
    this.proc.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.proc.stderr.on('data', () => {});
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
  }

  /** Send one command line; resolves with its reply blocks (one per command of the line). */
  command(line: string, blocks = 1): Promise<Block[]> {
    const out: Block[] = [];
    const p = new Promise<Block[]>((resolve) => {
      for (let i = 0; i < blocks; i++) {
        this.waiting.push((b) => {
          out.push(b);
          if (out.length === blocks) resolve(out);
        });
      }
    });
    this.proc.stdin.write(`${line}\n`);
    return p;
  }

  close(): void {
    this.proc.stdin.end();
  }

  private onData(chunk: Buffer): void {
    let buf = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      if (nl < 0) break;
      this.onLine(buf.subarray(start, nl));
      start = nl + 1;
    }
    this.rest = Buffer.from(buf.subarray(start));
  }

  private onLine(line: Buffer): void {
    if (this.block) {
      const s = line.toString('latin1');
      const b = this.block;
      if (s === `%end ${b.head}` || s === `%error ${b.head}`) {
        this.block = null;
        if (b.flags === '1') this.waiting.shift()?.({ ok: s.startsWith('%end'), lines: b.lines });
        return;
      }
      b.lines.push(Buffer.from(line));
      return;
    }
    if (line.subarray(0, 8).toString('latin1') === '%output ') {
      const sp = line.indexOf(0x20, 8);
      const pane = line.subarray(8, sp).toString('latin1');
      this.onOutput(pane, decodeOctal(line, sp + 1));
      return;
    }
    const s = line.toString('latin1');
    if (s.startsWith('%begin ')) {
      const head = s.slice(7);
      const flags = head.split(' ')[2] ?? '0';
      this.block = { head, lines: [], flags };
      if (flags === '1') this.onBlockStart();
    }
  }
}
