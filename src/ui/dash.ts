// The dashboard: every agent with its light, a preview of the selected one's screen, and keys
// to jump to it, send it a message or stop it. It draws what it is given (`update`) and asks
// its `DashActions` for the rest, so it runs the same against the socket and in tests.

import blessed from 'blessed';
import { dashRows, rowCells, type AgentInfo, type DashRow } from './rows.js';
import { escapeTags, tagLight } from './theme.js';
import { DEFAULT_LOOKS, type Kind, type Look } from '../looks.js';
import { visible } from '../text.js';

export interface DashActions {
  /** The selected agent's screen, ANSI (SGR only), its last `lines` lines. */
  read(target: string, lines: number): Promise<string>;
  send(target: string, message: string): Promise<void>;
  stop(target: string): Promise<void>;
  /** Switches the tmux client to the agent's window. */
  jump(row: DashRow): Promise<void>;
}

export interface DashOptions {
  screen: blessed.Widgets.Screen;
  actions: DashActions;
  looks?: Record<Kind, Look>;
  now?: () => number;
  /** Redraws the ages every so often; 0 turns it off (tests). Default 1000 ms. */
  tickMs?: number;
  home?: string;
}

type Mode = 'list' | 'prompt' | 'confirm';

const HELP = ' ↑↓/jk select · enter go · s send · x stop · q quit';

export class Dashboard {
  readonly screen: blessed.Widgets.Screen;
  private readonly actions: DashActions;
  private readonly looks: Record<Kind, Look>;
  private readonly now: () => number;
  private readonly home: string | undefined;
  private readonly header: blessed.Widgets.BoxElement;
  private readonly list: blessed.Widgets.BoxElement;
  private readonly preview: blessed.Widgets.BoxElement;
  private readonly footer: blessed.Widgets.BoxElement;
  private agents: AgentInfo[] = [];
  private rows: DashRow[] = [];
  private selectedKey: string | null = null;
  private top = 0;
  private mode: Mode = 'list';
  private swallowReturn = false;
  private message: string | null = null;
  private reading = false;
  private readAgain = false;
  private tick: NodeJS.Timeout | null = null;
  private finished!: () => void;
  /** Resolves when the user quits (q, Esc, Ctrl-C) or jumps to an agent. */
  readonly done: Promise<void>;

  constructor(opts: DashOptions) {
    this.screen = opts.screen;
    this.actions = opts.actions;
    this.looks = opts.looks ?? DEFAULT_LOOKS;
    this.now = opts.now ?? Date.now;
    this.home = opts.home;
    this.done = new Promise((r) => (this.finished = r));
    const s = this.screen;
    this.header = blessed.box({ parent: s, top: 0, left: 0, width: '100%', height: 1, tags: true });
    this.list = blessed.box({ parent: s, top: 1, left: 0, width: '100%', height: '40%', tags: true, border: { type: 'line' }, label: ' agents ' });
    this.preview = blessed.box({ parent: s, top: '40%+1', left: 0, width: '100%', height: '60%-2', tags: false, wrap: false, border: { type: 'line' }, label: ' preview ' });
    this.footer = blessed.box({ parent: s, bottom: 0, left: 0, width: '100%', height: 1, tags: true });
    s.program.on('keypress', (ch: string | undefined, key: blessed.Widgets.Events.IKeyEventArg) => this.onKey(ch, key));
    s.on('resize', () => {
      this.draw();
      this.refreshPreview();
    });
    if ((opts.tickMs ?? 1000) > 0) {
      this.tick = setInterval(() => this.draw(), opts.tickMs ?? 1000);
      this.tick.unref?.();
    }
    this.draw();
  }

  /** A new agent list (the subscription's first reply, then every change). */
  update(agents: AgentInfo[]): void {
    this.agents = agents;
    this.draw();
    this.refreshPreview();
  }

  /** A line in the footer until the next key. */
  say(text: string): void {
    this.message = text;
    this.draw();
  }

  selected(): DashRow | undefined {
    return this.rows.find((r) => r.key === this.selectedKey);
  }

  quit(): void {
    if (this.tick) clearInterval(this.tick);
    this.tick = null;
    this.finished();
  }

  private listHeight(): number {
    return Math.max(1, (this.list.height as number) - 3);
  }

  /**
   * The list takes 40% of the screen, or more when that is too small to show its rows (a 12-line
   * popup gave it a single line, taken by the column names): the preview gets what is left.
   */
  private layout(): void {
    const total = Math.max(0, (this.screen.height as number) - 2); // header and footer
    const want = this.rows.length + 3; // borders and the column names
    const list = Math.max(4, Math.min(total, Math.max(Math.floor(((this.screen.height as number) * 40) / 100), Math.min(want, total - 3))));
    this.list.height = list;
    this.preview.top = 1 + list;
    this.preview.height = Math.max(0, total - list);
  }

  private draw(): void {
    this.rows = dashRows(this.agents, this.now(), this.home);
    this.layout();
    let idx = this.rows.findIndex((r) => r.key === this.selectedKey);
    if (idx < 0 && this.rows.length) {
      idx = 0;
      this.selectedKey = this.rows[0]!.key;
    }
    const h = this.listHeight();
    if (idx < this.top) this.top = Math.max(0, idx);
    if (idx >= this.top + h) this.top = idx - h + 1;
    this.top = Math.min(this.top, Math.max(0, this.rows.length - h));
    // borders, the light and its space; one more column, as blessed counts an ending '…' as two
    const width = Math.max(10, (this.list.width as number) - 2 - 2 - 1);
    const lines = [`{bold}  ${escapeTags(rowCells(null, width))}{/bold}`];
    for (const [i, r] of this.rows.slice(this.top, this.top + h).entries()) {
      const cells = escapeTags(rowCells(r, width));
      const light = tagLight(this.looks[r.kind]);
      lines.push(this.top + i === idx ? `${light} {inverse}${cells}{/inverse}` : `${light} ${cells}`);
    }
    if (this.rows.length === 0) lines.push('  no agents: start one with `nerdr new claude` (or `nerdr demo`)');
    this.list.setContent(lines.join('\n'));
    this.header.setContent(` {bold}nerdr{/bold} · ${this.rows.length} agent${this.rows.length === 1 ? '' : 's'} ${this.counts()}`);
    const sel = this.selected();
    this.preview.setLabel(sel ? ` ${visible(sel.name)} · ${sel.state} ` : ' preview ');
    if (!sel) this.preview.setContent('');
    if (this.mode === 'list') this.footer.setContent(this.message ? ` ${escapeTags(this.message)}` : `{bold}${HELP}{/bold}`);
    this.screen.render();
  }

  private counts(): string {
    const order: Kind[] = ['blocked', 'done', 'working', 'background', 'stalled', 'idle', 'unknown', 'exited'];
    const n = new Map<Kind, number>();
    for (const r of this.rows) n.set(r.kind, (n.get(r.kind) ?? 0) + 1);
    return order
      .filter((k) => n.get(k))
      .map((k) => `${tagLight(this.looks[k])}${n.get(k)} ${k}`)
      .join('  ');
  }

  /** Reads the selected agent's screen; a change meanwhile reads again once this one is back. */
  private refreshPreview(): void {
    const sel = this.selected();
    if (!sel) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    const lines = Math.max(1, (this.preview.height as number) - 2);
    this.actions
      .read(sel.target, lines)
      .then(
        (text) => {
          if (this.selected()?.key !== sel.key) return;
          // a screen read from another host comes as that host sent it: its colours drawn, every
          // other sequence shown, never acted on
          this.preview.setContent(visible(text.replace(/\n$/, ''), { lines: true, colour: true }));
        },
        (err: Error) => {
          if (this.selected()?.key === sel.key) this.preview.setContent(`(no screen: ${visible(err.message)})`);
        },
      )
      .finally(() => {
        this.reading = false;
        this.screen.render();
        if (this.readAgain) {
          this.readAgain = false;
          this.refreshPreview();
        }
      });
  }

  private move(delta: number): void {
    if (this.rows.length === 0) return;
    const idx = Math.max(0, this.rows.findIndex((r) => r.key === this.selectedKey));
    const next = Math.min(this.rows.length - 1, Math.max(0, idx + delta));
    if (next === idx) return;
    this.selectedKey = this.rows[next]!.key;
    this.preview.setContent('');
    this.draw();
    this.refreshPreview();
  }

  private onKey(ch: string | undefined, key: blessed.Widgets.Events.IKeyEventArg): void {
    if (this.mode === 'prompt') return; // the textbox has the keys
    if (this.swallowReturn && key?.name === 'return') return;
    if (this.mode === 'confirm') return this.onConfirmKey(ch, key);
    this.message = null;
    const name = key?.full ?? key?.name ?? ch;
    switch (name) {
      case 'up':
      case 'k':
        return this.move(-1);
      case 'down':
      case 'j':
        return this.move(1);
      case 'pageup':
        return this.move(-this.listHeight());
      case 'pagedown':
        return this.move(this.listHeight());
      case 'enter':
      case 'return':
        return this.jump();
      case 's':
        return this.promptSend();
      case 'x':
        return this.confirmStop();
      case 'q':
      case 'escape':
      case 'C-c':
        return this.quit();
      default:
        this.draw();
    }
  }

  private jump(): void {
    const sel = this.selected();
    if (!sel) return;
    this.actions.jump(sel).then(
      () => this.quit(),
      (err: Error) => this.say(err.message),
    );
  }

  private promptSend(): void {
    const sel = this.selected();
    if (!sel) return;
    this.mode = 'prompt';
    this.footer.setContent(` message to {bold}${escapeTags(sel.name)}{/bold} (enter sends, esc cancels):`);
    const box = blessed.textbox({ parent: this.screen, bottom: 1, left: 0, width: '100%', height: 3, border: { type: 'line' }, label: ` send to ${sel.name} `, inputOnFocus: false });
    box.focus();
    this.screen.render();
    box.readInput((_err: unknown, value?: string | null) => {
      box.destroy();
      this.mode = 'list';
      // blessed turns one Enter (\r) into two keypresses, 'enter' (which ended the input) and then
      // 'return' at once: that second one must not also jump to the agent
      this.swallowReturn = true;
      setImmediate(() => (this.swallowReturn = false));
      const text = typeof value === 'string' ? value.trim() : '';
      if (!text) return this.say('nothing sent');
      this.say(`sending to ${sel.name}…`);
      this.actions.send(sel.target, text).then(
        () => this.say(`queued for ${sel.name}`),
        (err: Error) => this.say(`not sent: ${err.message}`),
      );
    });
  }

  private stopTarget: DashRow | null = null;

  private confirmStop(): void {
    const sel = this.selected();
    if (!sel) return;
    this.mode = 'confirm';
    this.stopTarget = sel;
    this.footer.setContent(` {red-fg}{bold}stop ${escapeTags(sel.name)}?{/bold}{/red-fg} its window is closed and the agent ends. y = stop, any other key = keep it`);
    this.screen.render();
  }

  private onConfirmKey(ch: string | undefined, key: blessed.Widgets.Events.IKeyEventArg): void {
    const row = this.stopTarget;
    this.mode = 'list';
    this.stopTarget = null;
    if (!row || (ch !== 'y' && key?.name !== 'y')) return this.say('kept');
    this.say(`stopping ${row.name}…`);
    this.actions.stop(row.target).then(
      () => this.say(`${row.name} stopped`),
      (err: Error) => this.say(`not stopped: ${err.message}`),
    );
  }
}

/** The text on the screen, one string per row (what a test or a bug report looks at). */
export function screenText(screen: blessed.Widgets.Screen): string[] {
  const lines = (screen as unknown as { lines: [number, string][][] }).lines;
  return lines.map((l) => l.map((c) => c[1]).join('').replace(/\s+$/, ''));
}
