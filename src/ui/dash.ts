// The dashboard: two views of one list box and one preview. The inbox (first): everything that
// waits for a person, the selected prompt in full, one key per choice. The agents (Tab): every
// agent with its light, a preview of its screen, keys to jump to it, send it a message or stop
// it. It draws what it is given (`update`, `refreshInbox`) and asks its `DashActions` for the
// rest, so it runs the same against the socket and in tests.

import blessed from 'blessed';
import { dashRows, rowCells, type AgentInfo, type DashRow } from './rows.js';
import { escapeTags, tagLight } from './theme.js';
import { age, DEFAULT_LOOKS, type Kind, type Look } from '../looks.js';
import type { AnswerChoice, InboxRow } from '../protocol/index.js';
import { visible } from '../text.js';
import { parseDuration } from '../inbox/duration.js';
import { MAX_SNOOZE_MS } from '../inbox/snooze.js';
import { inboxAction, inboxCells, inboxDetail, inboxKey, rowName, sameDialog, samePlace, type InboxAction } from './inbox.js';

export interface DashActions {
  /** The selected agent's screen, ANSI (SGR only), its last `lines` lines. */
  read(target: string, lines: number): Promise<string>;
  send(target: string, message: string): Promise<void>;
  stop(target: string): Promise<void>;
  /** `nerdr hibernate` / `nerdr wake` (docs/lifecycle.md). */
  hibernate(target: string): Promise<void>;
  wake(target: string): Promise<void>;
  /** Switches the tmux client to the agent's window. */
  jump(row: DashRow): Promise<void>;
  /** The inbox, oldest first: this host's rows and the fleet's hosts' (with `host`). */
  inbox(): Promise<InboxRow[]>;
  /** `nerdr.answer` (a fleet row: the host's own `nerdr answer`); a changed prompt rejects with code `prompt_changed`. */
  answer(row: InboxRow, choice: AnswerChoice): Promise<void>;
  snooze(row: InboxRow, ms: number): Promise<void>;
  /** Cancels a queued message (its row's `message`). */
  cancel(row: InboxRow): Promise<void>;
  /** `nerdr new` with what the "new agent" action asked; resolves to the new window's id. */
  newAgent(spec: NewAgentSpec): Promise<string>;
}

/** The dashboard's "new agent" (key n): as `nerdr new AGENT -d [--name] [--worktree] [--prompt]` in `cwd`. */
export interface NewAgentSpec {
  agent: string;
  name: string | null;
  worktree: string | null;
  prompt: string | null;
  /** The selected agent's folder (another agent on the same repository), else the dashboard's. */
  cwd: string;
}

export interface DashOptions {
  screen: blessed.Widgets.Screen;
  actions: DashActions;
  looks?: Record<Kind, Look>;
  now?: () => number;
  /** Redraws the ages every so often; 0 turns it off (tests). Default 1000 ms. */
  tickMs?: number;
  home?: string;
  /** The view shown first; default the inbox. */
  view?: View;
}

type Mode = 'list' | 'prompt' | 'confirm' | 'choose';
export type View = 'inbox' | 'agents';

const HELP: Record<View, string> = {
  agents: ' ↑↓/jk select · enter go · s send · n new · x stop · z hibernate/wake · Tab inbox · q quit',
  inbox: ' ↑↓ select · 1-9/a/A/d answer · B bulk · z/Z snooze · x cancel · enter go · n new · Tab agents · q quit',
};

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
  private view: View;
  private inboxRows: InboxRow[] = [];
  private inboxSelected: string | null = null;
  private inboxTop = 0;
  /** After "the prompt changed": select that window's prompt in the first inbox read after `read`. */
  private reselect: { row: InboxRow; read: number } | null = null;
  /** Inbox reads started so far. */
  private reads = 0;
  private closed = false;
  private loading = false;
  private loadAgain = false;
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
    this.view = opts.view ?? 'inbox';
    this.done = new Promise((r) => (this.finished = r));
    const s = this.screen;
    this.header = blessed.box({ parent: s, top: 0, left: 0, width: '100%', height: 1, tags: true });
    this.list = blessed.box({ parent: s, top: 1, left: 0, width: '100%', height: '40%', tags: true, border: { type: 'line' }, label: this.view === 'inbox' ? ' inbox ' : ' agents ' });
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
    this.refreshInbox();
  }

  /**
   * Reads the inbox again (after every change the subscription reports, and after each action);
   * calls while one read is out make one more read once it is back.
   */
  refreshInbox(): void {
    if (this.closed) return;
    if (this.loading) {
      this.loadAgain = true;
      return;
    }
    this.loading = true;
    const read = ++this.reads;
    this.actions
      .inbox()
      .then(
        (rows) => {
          if (this.closed) return;
          this.inboxRows = rows;
          // a read that started before the refusal may still show the old prompt
          if (this.reselect && read > this.reselect.read) {
            const again = samePlace(rows, this.reselect.row);
            if (again) this.inboxSelected = inboxKey(again);
            this.reselect = null;
          }
          this.draw();
        },
        (err: Error) => void (this.closed || this.say(`the inbox could not be read: ${err.message}`)),
      )
      .finally(() => {
        this.loading = false;
        if (this.loadAgain) {
          this.loadAgain = false;
          this.refreshInbox();
        }
      });
  }

  selectedPrompt(): InboxRow | undefined {
    return this.inboxRows.find((r) => inboxKey(r) === this.inboxSelected);
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
    this.closed = true;
    if (this.tick) clearInterval(this.tick);
    this.tick = null;
    this.finished();
  }

  private shownRows(): number {
    return this.view === 'inbox' ? Math.max(1, this.inboxRows.length) : this.rows.length;
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
    const want = this.shownRows() + 3; // borders and the column names
    const list = Math.max(4, Math.min(total, Math.max(Math.floor(((this.screen.height as number) * 40) / 100), Math.min(want, total - 3))));
    this.list.height = list;
    this.preview.top = 1 + list;
    this.preview.height = Math.max(0, total - list);
  }

  private draw(): void {
    this.rows = dashRows(this.agents, this.now(), this.home);
    this.layout();
    if (this.view === 'inbox') this.drawInbox();
    else this.drawAgents();
    // the view shown in inverse; `nerdr · N agents` reads as it always did
    const tab = (view: View, text: string): string => (this.view === view ? `{inverse}${text}{/inverse}` : text);
    const agents = tab('agents', `${this.rows.length} agent${this.rows.length === 1 ? '' : 's'}`);
    const inbox = tab('inbox', `inbox ${this.inboxRows.length}`);
    this.header.setContent(` {bold}nerdr{/bold} · ${agents} · ${inbox}  ${this.counts()}`);
    if (this.mode === 'list') this.footer.setContent(this.message ? ` ${escapeTags(this.message)}` : `{bold}${HELP[this.view]}{/bold}`);
    this.screen.render();
  }

  /** The first row on screen so that the selected one (`idx`) shows. */
  private scrolled(idx: number, top: number, count: number): number {
    const h = this.listHeight();
    if (idx < top) top = Math.max(0, idx);
    if (idx >= top + h) top = idx - h + 1;
    return Math.min(top, Math.max(0, count - h));
  }

  private drawAgents(): void {
    let idx = this.rows.findIndex((r) => r.key === this.selectedKey);
    if (idx < 0 && this.rows.length) {
      idx = 0;
      this.selectedKey = this.rows[0]!.key;
    }
    const h = this.listHeight();
    this.top = this.scrolled(idx, this.top, this.rows.length);
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
    const sel = this.selected();
    this.preview.setLabel(sel ? ` ${visible(sel.name)} · ${sel.state} ` : ' preview ');
    if (!sel) this.preview.setContent('');
  }

  private drawInbox(): void {
    const rows = this.inboxRows;
    let idx = rows.findIndex((r) => inboxKey(r) === this.inboxSelected);
    if (idx < 0 && rows.length) {
      idx = 0;
      this.inboxSelected = inboxKey(rows[0]!);
    }
    const h = this.listHeight();
    this.inboxTop = this.scrolled(idx, this.inboxTop, rows.length);
    const width = Math.max(10, (this.list.width as number) - 2 - 2 - 1);
    const now = this.now();
    const lines = [`{bold}  ${escapeTags(inboxCells(null, now, width))}{/bold}`];
    for (const [i, r] of rows.slice(this.inboxTop, this.inboxTop + h).entries()) {
      const cells = escapeTags(inboxCells(r, now, width));
      const light = r.kind === 'queued' ? '·' : tagLight(this.looks[r.kind]);
      lines.push(this.inboxTop + i === idx ? `${light} {inverse}${cells}{/inverse}` : `${light} ${cells}`);
    }
    if (rows.length === 0) lines.push('  nothing waits for you (Tab: the agents)');
    this.list.setContent(lines.join('\n'));
    const sel = this.selectedPrompt();
    // the preview has no tags: inboxDetail made every agent's text visible, braces stay braces
    this.preview.setLabel(sel ? ` ${rowName(sel)} · ${sel.kind} ` : ' prompt ');
    this.preview.setContent(sel ? inboxDetail(sel, now) : '');
  }

  private counts(): string {
    const order: Kind[] = ['blocked', 'done', 'limited', 'working', 'background', 'stalled', 'idle', 'hibernated', 'unknown', 'exited'];
    const n = new Map<Kind, number>();
    for (const r of this.rows) n.set(r.kind, (n.get(r.kind) ?? 0) + 1);
    return order
      .filter((k) => n.get(k))
      .map((k) => `${tagLight(this.looks[k])}${n.get(k)} ${k}`)
      .join('  ');
  }

  /** Reads the selected agent's screen; a change meanwhile reads again once this one is back. */
  private refreshPreview(): void {
    if (this.view !== 'agents') return;
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
    if (this.view === 'inbox') {
      const rows = this.inboxRows;
      if (rows.length === 0) return;
      const idx = Math.max(0, rows.findIndex((r) => inboxKey(r) === this.inboxSelected));
      this.inboxSelected = inboxKey(rows[Math.min(rows.length - 1, Math.max(0, idx + delta))]!);
      return this.draw();
    }
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
    if (this.mode === 'choose') return this.onChooseKey(typed(ch, key));
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
      case 'tab':
        return this.switchView();
      case 'enter':
      case 'return':
        return this.jump();
      case 's':
        return this.promptSend();
      case 'n':
        return this.promptNew();
      case 'q':
      case 'escape':
      case 'C-c':
        return this.quit();
    }
    if (this.view === 'agents' && name === 'x') return this.confirmStop();
    if (this.view === 'agents' && name === 'z') return this.sleepOrWake();
    const act = this.view === 'inbox' ? inboxAction(typed(ch, key), this.selectedPrompt()) : null;
    if (act) return this.act(act);
    this.draw();
  }

  private switchView(): void {
    this.view = this.view === 'inbox' ? 'agents' : 'inbox';
    this.list.setLabel(this.view === 'inbox' ? ' inbox ' : ' agents ');
    this.preview.setContent('');
    this.draw();
    if (this.view === 'agents') this.refreshPreview();
    else this.refreshInbox();
  }

  /** The agent of the selected row, in either view: its target for the socket and its name. */
  private selectedAgent(): { target: string; name: string; row: DashRow | undefined } | null {
    if (this.view === 'agents') {
      const sel = this.selected();
      return sel ? { target: sel.target, name: sel.name, row: sel } : null;
    }
    const p = this.selectedPrompt();
    if (!p) return null;
    const target = p.host ? `${p.host}:${p.window}` : p.window;
    return { target, name: rowName(p), row: this.rows.find((r) => r.window === target) };
  }

  private jump(): void {
    const sel = this.selectedAgent();
    if (!sel) return;
    if (!sel.row) return this.say(`${sel.name} is not in the agent list${sel.target.includes(':') ? ' (nerdr dash --fleet lists the fleet\'s agents)' : ''}`);
    this.actions.jump(sel.row).then(
      () => this.quit(),
      (err: Error) => this.say(err.message),
    );
  }

  /** A line of text typed in a box above the footer; `done` gets it trimmed ('' when cancelled). */
  private ask(label: string, footer: string, done: (text: string) => void): void {
    this.mode = 'prompt';
    this.footer.setContent(footer);
    const box = blessed.textbox({ parent: this.screen, bottom: 1, left: 0, width: '100%', height: 3, border: { type: 'line' }, label, inputOnFocus: false });
    box.focus();
    this.screen.render();
    box.readInput((_err: unknown, value?: string | null) => {
      box.destroy();
      this.mode = 'list';
      // blessed turns one Enter (\r) into two keypresses, 'enter' (which ended the input) and then
      // 'return' at once: that second one must not also jump to the agent
      this.swallowReturn = true;
      setImmediate(() => (this.swallowReturn = false));
      done(typeof value === 'string' ? value.trim() : '');
    });
  }

  private promptSend(): void {
    const sel = this.selectedAgent();
    if (!sel) return;
    this.ask(` send to ${sel.name} `, ` message to {bold}${escapeTags(sel.name)}{/bold} (enter sends, esc cancels):`, (text) => {
      if (!text) return this.say('nothing sent');
      this.say(`sending to ${sel.name}…`);
      this.actions.send(sel.target, text).then(
        () => {
          this.say(`queued for ${sel.name}`);
          this.refreshInbox();
        },
        (err: Error) => this.say(`not sent: ${err.message}`),
      );
    });
  }

  /** Key n: the agent, its name, a worktree branch and a first prompt, one box after the other; then `nerdr new`. */
  private promptNew(): void {
    // beside the selected agent (its repository), unless it runs on another host
    const sel = this.selectedAgent();
    const cwd = sel?.row && !sel.target.includes(':') ? sel.row.cwdFull : process.cwd();
    const steps: { label: string; hint: string }[] = [
      { label: ' new agent: which agent? ', hint: 'claude, codex, opencode, copilot, gemini, qwen, kilo, pi, … (esc cancels)' },
      { label: ' its name ', hint: 'empty: the agent, or the worktree branch' },
      { label: ' its worktree branch ', hint: `empty: none; else a git worktree of this branch, beside ${escapeTags(visible(cwd))}` },
      { label: ' its first message ', hint: 'empty: none; else typed in once it first waits' },
    ];
    const got: string[] = [];
    const next = (): void => {
      const step = steps[got.length];
      if (!step) return this.startNew({ agent: got[0]!, name: got[1] || null, worktree: got[2] || null, prompt: got[3] || null, cwd });
      this.ask(step.label, ` ${step.hint}`, (text) => {
        if (got.length === 0 && !text) return this.say('no agent started');
        got.push(text);
        next();
      });
    };
    next();
  }

  private startNew(spec: NewAgentSpec): void {
    this.say(`starting ${spec.agent}…`);
    this.actions.newAgent(spec).then(
      (win) => this.say(`started ${spec.name ?? spec.agent} in ${win}${spec.prompt ? '; its first message is queued' : ''}`),
      (err: Error) => this.say(`not started: ${err.message}`),
    );
  }

  private onYes: (() => void) | null = null;

  /** Asks in the footer; `yes` runs on y, any other key keeps things as they are. */
  private confirm(question: string, yes: () => void): void {
    this.mode = 'confirm';
    this.onYes = yes;
    this.footer.setContent(question);
    this.screen.render();
  }

  /** z: hibernates the selected agent, or wakes it when it is hibernated. */
  private sleepOrWake(): void {
    const sel = this.selected();
    if (!sel) return;
    const waking = sel.state === 'hibernated';
    this.say(`${waking ? 'waking' : 'hibernating'} ${sel.name}…`);
    (waking ? this.actions.wake(sel.target) : this.actions.hibernate(sel.target)).then(
      () => this.say(`${sel.name} ${waking ? 'woke' : 'hibernated'}`),
      (err: Error) => this.say(`${waking ? 'not woken' : 'not hibernated'}: ${err.message}`),
    );
  }

  private confirmStop(): void {
    const sel = this.selected();
    if (!sel) return;
    this.confirm(` {red-fg}{bold}stop ${escapeTags(sel.name)}?{/bold}{/red-fg} its window is closed and the agent ends. y = stop, any other key = keep it`, () => {
      this.say(`stopping ${sel.name}…`);
      this.actions.stop(sel.target).then(
        () => this.say(`${sel.name} stopped`),
        (err: Error) => this.say(`not stopped: ${err.message}`),
      );
    });
  }

  private onConfirmKey(ch: string | undefined, key: blessed.Widgets.Events.IKeyEventArg): void {
    const yes = this.onYes;
    this.mode = 'list';
    this.onYes = null;
    if (!yes || (ch !== 'y' && key?.name !== 'y')) return this.say('kept');
    yes();
  }

  /** An inbox key's action on the selected row. */
  private act(a: InboxAction): void {
    const row = this.selectedPrompt();
    if (a.do === 'refuse' || !row) return this.say(a.do === 'refuse' ? a.why : 'nothing waits for you');
    const name = rowName(row);
    switch (a.do) {
      case 'answer':
        return this.answer([row], a.choice, a.label);
      case 'bulk':
        this.mode = 'choose';
        this.footer.setContent(` answer every prompt showing this dialog with which option? ${escapeTags(row.dialog!.options.map((o) => `${o.n} ${o.label}`).join(' · '))} (a/A/d too; any other key: none)`);
        return this.screen.render();
      case 'snooze':
        return this.snooze(row, a.ms);
      case 'ask-snooze':
        return this.ask(` snooze ${name} `, ' for how long? 15m, 2h, 1d (enter snoozes, esc cancels):', (text) => {
          if (!text) return this.say('not snoozed');
          const ms = parseDuration(text);
          if (ms === null || ms <= 0 || ms > MAX_SNOOZE_MS) return this.say(`"${text}" is not a duration of at most a week (15m, 2h, 1d): not snoozed`);
          this.snooze(row, ms);
        });
      case 'cancel':
        return this.confirm(` {bold}cancel the message queued for ${escapeTags(name)}?{/bold} it is never typed in. y = cancel it, any other key = keep it`, () => {
          this.say(`cancelling the message for ${name}…`);
          this.after(this.actions.cancel(row), `message for ${name} cancelled`, 'not cancelled');
        });
    }
  }

  /** After `B`: the key that chooses, then how many prompts, then y. */
  private onChooseKey(key: string): void {
    this.mode = 'list';
    const row = this.selectedPrompt();
    const a = inboxAction(key, row);
    if (!row || !a || a.do !== 'answer') return this.say(a?.do === 'refuse' ? `none answered: ${a.why}` : 'none answered');
    const all = sameDialog(this.inboxRows, row);
    this.confirm(` {bold}answer ${all.length} prompt${all.length === 1 ? '' : 's'} showing this dialog with ${escapeTags(a.label)}?{/bold} each is checked against its own screen. y = answer, any other key = none`, () =>
      this.answer(all, a.choice, a.label),
    );
  }

  /** Answers each row in turn; says how it went; a prompt that changed selects the new one. */
  private answer(rows: InboxRow[], choice: AnswerChoice, label: string): void {
    const one = rows.length === 1 ? rowName(rows[0]!) : `${rows.length} prompts`;
    this.say(`answering ${one}: ${label}…`);
    void (async () => {
      const failed: string[] = [];
      let changed: InboxRow | null = null;
      for (const r of rows) {
        try {
          await this.actions.answer(r, choice);
        } catch (err) {
          const e = err as Error & { code?: string };
          if (e.code === 'prompt_changed') changed ??= r;
          failed.push(rows.length === 1 ? e.message : `${rowName(r)}: ${e.message}`);
        }
      }
      if (changed) this.reselect = { row: changed, read: this.reads };
      if (failed.length === 0) this.say(`answered ${one}: ${label}`);
      else if (rows.length === 1) this.say(`not answered: ${failed[0]}`);
      else this.say(`${rows.length - failed.length} of ${rows.length} answered; not: ${failed.join('; ')}`);
      this.refreshInbox();
    })();
  }

  private snooze(row: InboxRow, ms: number): void {
    const name = rowName(row);
    this.after(this.actions.snooze(row, ms), `${name} snoozed for ${age(ms)}`, 'not snoozed');
  }

  /** Says how an action went, then reads the inbox again. */
  private after(p: Promise<void>, ok: string, notOk: string): void {
    p.then(
      () => this.say(ok),
      (err: Error) => this.say(`${notOk}: ${err.message}`),
    ).finally(() => this.refreshInbox());
  }
}

/** The character typed, for the inbox's keys: blessed names `A` as `S-a` and a digit by itself. */
function typed(ch: string | undefined, key: blessed.Widgets.Events.IKeyEventArg | undefined): string {
  if (ch && ch.length === 1 && !key?.ctrl && !key?.meta) return ch;
  return key?.full ?? key?.name ?? ch ?? '';
}

/** The text on the screen, one string per row (what a test or a bug report looks at). */
export function screenText(screen: blessed.Widgets.Screen): string[] {
  const lines = (screen as unknown as { lines: [number, string][][] }).lines;
  return lines.map((l) => l.map((c) => c[1]).join('').replace(/\s+$/, ''));
}
