// One control-mode client: `tmux -u -N -S <socket> -C attach-session -E -t '=<session>'`.
// stdout is read without pause and parsed on the data path; replies are matched to the
// lines we sent in FIFO order by the %begin flags (1 = ours, 0 = tmux's own, skipped).
// When tmux goes silent after output or while it owes a reply, a no-op command makes it write
// lines it may be holding back (stall.ts).

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { LineSplitter, ProtocolParser, type Block, type ProtocolEvent } from './protocol.js';
import { tmuxArgv } from './server.js';
import { StallWatch } from './stall.js';

export interface Reply {
  ok: boolean;
  /** true when an earlier command of the same line failed, so tmux never ran this one. */
  skipped: boolean;
  lines: Buffer[];
}

const QUEUEING = /^(if-shell|if|run-shell|run|source-file|source|confirm-before|confirm|command-prompt)\b/;

/** Sent to make tmux write what it holds; prints one empty line. */
const NUDGE = "display -p ''";
const PAUSE_LINE = /^%(pause|continue) %\d+$/;
/** `refresh-client -A …`, with its flag quoted or not (quote.ts's command() quotes it). */
const OUTPUT_CONTROL = /^refresh-client (-A|'-A') /;

export function replyText(reply: Reply): string {
  return reply.lines.map((l) => l.toString('utf8')).join('\n');
}

interface Pending {
  group: Reply[];
  expected: number;
  onDone: (replies: Reply[]) => void;
  /** Per command: it is `refresh-client -A`, whose block tmux < 3.8 prints %pause/%continue into. */
  pauseBlocks: boolean[];
}

export interface ControlClientOptions {
  tmuxBin?: string;
  /** Silence (ms) after output, or with a reply owed, before tmux is nudged; default 1000. */
  quietMs?: number;
}

export interface ControlClientEvents {
  output: [pane: string, data: Buffer, ageMs: number | undefined];
  notification: [name: string, args: string];
  /** tmux attached the client (its first %session-changed): commands held until now are sent. */
  attached: [];
  exit: [reason: string];
}

export class ControlClient extends EventEmitter<ControlClientEvents> {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly splitter = new LineSplitter();
  private readonly parser: ProtocolParser;
  private readonly pending: Pending[] = [];
  private closed = false;
  private stderr = '';
  /** Lines written before the attach finished would fail with "no current client". */
  private attached = false;
  private unsent: string[] = [];
  private readonly now = Date.now;
  private readonly watch: StallWatch;
  private watchTimer: NodeJS.Timeout | null = null;
  private nudgeOwed = false;
  /** No-op commands sent to make tmux write what it held back. */
  nudges = 0;
  readonly exited: Promise<number | null>;

  constructor(readonly socketPath: string, readonly session: string, opts: ControlClientOptions = {}) {
    super();
    const tmuxBin = opts.tmuxBin ?? 'tmux';
    this.watch = new StallWatch(this.now, opts.quietMs ?? 1000);
    this.parser = new ProtocolParser(
      (e) => this.onEvent(e),
      (line, block) => {
        // only inside the reply to a refresh-client -A of ours: elsewhere it is pane text
        const p = this.pending[0];
        return block.flags === '1' && p?.pauseBlocks[p.group.length] === true && PAUSE_LINE.test(line.toString('latin1'));
      },
    );
    this.child = spawn(tmuxBin, tmuxArgv(['-N', '-S', socketPath], ['-C', 'attach-session', '-E', '-t', `=${session}`]), {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.on('data', (chunk: Buffer) => this.splitter.push(chunk, (line) => this.parser.line(line)));
    this.child.stderr.on('data', (chunk: Buffer) => {
      if (this.stderr.length < 4096) this.stderr += chunk.toString('utf8');
    });
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code) => {
        this.closed = true;
        this.stopWatching();
        this.failPending();
        this.emit('exit', this.stderr.trim());
        resolve(code);
      });
      this.child.on('error', (err) => {
        this.stderr += String(err.message);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Sends commands on one line (joined with ` ; `, so nothing else runs between them) and
   * calls onDone synchronously from the parser once every reply is in, before any later
   * line is parsed. That ordering is what the snapshot-then-stream recipe relies on.
   */
  sendWith(commands: string[], onDone: (replies: Reply[]) => void): void {
    if (commands.length === 0) {
      onDone([]);
      return; // an empty line would detach the client
    }
    for (const c of commands) {
      if (/[\n\r]/.test(c)) throw new Error(`a tmux command line may not contain a line break: ${JSON.stringify(c)}`);
      // these queue further commands on this client, whose extra replies would break FIFO matching
      if (QUEUEING.test(c)) throw new Error(`not sent on the control channel (it queues more commands): ${c.split(' ')[0]}`);
    }
    if (this.closed) {
      onDone(commands.map(() => ({ ok: false, skipped: true, lines: [Buffer.from('control client closed')] })));
      return;
    }
    this.pending.push({
      group: [],
      expected: commands.length,
      onDone,
      pauseBlocks: commands.map((c) => OUTPUT_CONTROL.test(c)),
    });
    const line = commands.join(' ; ') + '\n';
    if (this.attached) this.child.stdin.write(line);
    else this.unsent.push(line);
    this.watchFrom(this.watch.sent());
  }

  send(commands: string[]): Promise<Reply[]> {
    return new Promise((resolve) => this.sendWith(commands, resolve));
  }

  /** One command; rejects with tmux's error text when it fails. */
  async run(cmd: string): Promise<string> {
    const [reply] = await this.send([cmd]);
    if (!reply || !reply.ok) throw new Error(reply ? replyText(reply) : 'no reply');
    return replyText(reply);
  }

  /** Clean detach: stop output first, keep reading until EOF, then close stdin. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.sendWith(['refresh-client -f no-output'], () => undefined);
    this.sendWith(['detach-client'], () => undefined);
    const timer = setTimeout(() => this.child.kill('SIGTERM'), 2000);
    await this.exited;
    clearTimeout(timer);
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  private watchFrom(at: number | null): void {
    if (at === null || this.closed) return;
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = setTimeout(() => this.look(), Math.max(0, at - this.now()));
    this.watchTimer.unref();
  }

  private look(): void {
    this.watchTimer = null;
    if (this.closed) return;
    const { nudge, next } = this.watch.look(this.pending.length, this.nudgeOwed);
    if (nudge && this.attached) {
      this.nudges++;
      this.nudgeOwed = true;
      this.sendWith([NUDGE], () => (this.nudgeOwed = false));
    }
    if (next !== null && !this.watchTimer) this.watchFrom(next);
  }

  private stopWatching(): void {
    this.watch.stop();
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = null;
  }

  private onEvent(e: ProtocolEvent): void {
    this.watchFrom(this.watch.heardLine(e.type === 'output'));
    switch (e.type) {
      case 'output':
        this.emit('output', e.pane, e.data, e.ageMs);
        break;
      case 'notification':
        if (!this.attached && e.name === 'session-changed') {
          this.attached = true;
          for (const line of this.unsent.splice(0)) this.child.stdin.write(line);
          this.emit('attached');
        }
        this.emit('notification', e.name, e.args);
        break;
      case 'exit':
        break; // the process closing follows; 'exit' is emitted then
      case 'block':
        if (e.block.flags === '1') this.onReply(e.block);
        break;
    }
  }

  private onReply(block: Block): void {
    const p = this.pending[0];
    if (!p) return;
    p.group.push({ ok: !block.error, skipped: false, lines: block.lines });
    // An error cuts the rest of the line short; a parse error answers the whole line once.
    if (block.error) {
      while (p.group.length < p.expected) p.group.push({ ok: false, skipped: true, lines: [] });
    }
    if (p.group.length >= p.expected) {
      this.pending.shift();
      p.onDone(p.group);
    }
  }

  private failPending(): void {
    for (const p of this.pending.splice(0)) {
      while (p.group.length < p.expected) p.group.push({ ok: false, skipped: true, lines: [Buffer.from('control client closed')] });
      p.onDone(p.group);
    }
  }
}
