// The review panel: a window's branch and changed files, the selected file's diff, and the
// agent's walkthrough and why notes. It draws what it is given (`show`) and asks its
// `ReviewActions` for diffs, the editor and a refresh, so it runs the same against git and tmux
// and in tests.

import path from 'node:path';
import blessed from 'blessed';
import { escapeTags } from '../ui/theme.js';
import { compactRows, diffRows, rowForLine, tagRow, type DiffRow } from './diff.js';
import type { BoundedText } from './bounded-text.js';
import type { ReviewData } from './data.js';
import type { ReviewFile } from './git.js';
import { fileList, fitEnd, footerLines, layout, noteList, scrollTo, stepPlace, type ListRow } from './layout.js';
import type { ReviewNote } from './notes.js';
import type { CommentPlace } from './comment.js';
import { visible } from '../text.js';

export interface ReviewActions {
  /** The diff of one listed file, bounded: its first lines and how many more there are. */
  fileDiff(data: ReviewData, file: ReviewFile): Promise<BoundedText>;
  /** What a walkthrough step points at: a diff, or the file itself when nothing changed there. */
  stepRows(data: ReviewData, step: ReviewNote): Promise<DiffRow[]>;
  /** Opens the file in $EDITOR in a new tmux window. */
  edit(data: ReviewData, file: string, line: number | null): Promise<void>;
  /** Gathers the data again now. */
  refresh(): void;
  /** Queues a comment on a line for the window's agent (src/review/comment.ts); resolves to what to say. */
  comment(data: ReviewData, place: CommentPlace, text: string): Promise<string>;
}

export interface ReviewPanelOptions {
  screen: blessed.Widgets.Screen;
  actions: ReviewActions;
}

type Focus = 'files' | 'notes' | 'diff';

const REFRESHING = 'refreshing…';

interface Shown {
  /** What the diff box shows: a file (kind + path), a step or a note. */
  key: string;
  rows: DiffRow[];
  /** The row a step points at, drawn reversed; -1 for none. */
  mark: number;
}

export class ReviewPanel {
  readonly screen: blessed.Widgets.Screen;
  private readonly actions: ReviewActions;
  private readonly header: blessed.Widgets.BoxElement;
  private readonly filesBox: blessed.Widgets.BoxElement;
  private readonly notesBox: blessed.Widgets.BoxElement;
  private readonly diffBox: blessed.Widgets.BoxElement;
  private readonly footer: blessed.Widgets.BoxElement;
  private data: ReviewData | null = null;
  private fileRows: ListRow[] = [];
  private noteRows: ListRow[] = [];
  private fileSel = -1;
  private noteSel = -1;
  private fileTop = 0;
  private noteTop = 0;
  private focus: Focus = 'files';
  private shown: Shown = { key: '', rows: [], mark: -1 };
  private diffTop = 0;
  /** What the diff box is to show (asked for, maybe not back yet), and the latest request's number. */
  private wanted = '';
  private request = 0;
  private loading = 0;
  private message: string | null = null;
  /** A comment is being typed: the keys are the textbox's. */
  private prompting = false;
  private finished!: () => void;
  /** Resolves when the user quits (q, Ctrl-C; Esc outside the diff). */
  readonly done: Promise<void>;

  constructor(opts: ReviewPanelOptions) {
    this.screen = opts.screen;
    this.actions = opts.actions;
    this.done = new Promise((r) => (this.finished = r));
    const s = this.screen;
    this.header = blessed.box({ parent: s, top: 0, left: 0, width: '100%', height: 2, tags: true, wrap: false });
    this.filesBox = blessed.box({ parent: s, left: 0, width: '100%', tags: true, wrap: false, border: { type: 'line' }, label: ' files ' });
    this.notesBox = blessed.box({ parent: s, left: 0, width: '100%', tags: true, wrap: false, border: { type: 'line' }, label: ' notes ' });
    this.diffBox = blessed.box({ parent: s, left: 0, width: '100%', tags: true, wrap: false, border: { type: 'line' }, label: ' diff ' });
    this.footer = blessed.box({ parent: s, left: 0, width: '100%', tags: true, wrap: false });
    s.program.on('keypress', (ch: string | undefined, key: blessed.Widgets.Events.IKeyEventArg) => this.onKey(ch, key));
    s.on('resize', () => this.draw());
    this.draw();
  }

  /** New data: the same target keeps its selection and scroll; another one starts at the top. */
  show(data: ReviewData): void {
    const prev = this.data;
    const same = prev !== null && prev.window === data.window && prev.folder === data.folder;
    if (this.message === REFRESHING) this.message = null;
    if (same && prev.files === data.files && prev.steps === data.steps && prev.why === data.why) {
      // a new state or name only: drawn again, no diff asked for
      this.data = data;
      return this.draw();
    }
    const prevFile = same ? this.selectedFile() : undefined;
    this.data = data;
    if (!same) {
      this.fileSel = -1;
      this.noteSel = -1;
      this.fileTop = this.noteTop = this.diffTop = 0;
      this.shown = { key: '', rows: [], mark: -1 };
      this.wanted = '';
      if (this.focus !== 'files') this.focus = 'files';
    }
    const keep = prevFile ? data.files.findIndex((f) => f.kind === prevFile.kind && f.path === prevFile.path) : -1;
    this.fileSel = keep >= 0 ? keep : Math.min(this.fileSel, data.files.length - 1);
    if (this.fileSel < 0 && data.files.length) this.fileSel = 0;
    const notes = data.steps.length + data.why.length;
    if (this.noteSel >= notes) this.noteSel = notes - 1;
    if (this.noteSel < 0 && notes) this.noteSel = 0;
    this.draw();
    // what the diff box shows is looked at again: the file may have changed
    const key = this.wanted;
    if (key.startsWith('note:')) this.showNote(this.noteSel, false);
    else if (this.fileSel >= 0) this.showFile(this.fileSel, key === this.fileKey(this.fileSel));
    else {
      this.wanted = '';
      this.setShown({ key: '', rows: [], mark: -1 });
    }
  }

  /** A line in the footer until the next key. */
  say(text: string): void {
    this.message = text;
    this.draw();
  }

  quit(): void {
    this.finished();
  }

  current(): ReviewData | null {
    return this.data;
  }

  private selectedFile(): ReviewFile | undefined {
    return this.data?.files[this.fileSel];
  }

  private fileKey(i: number): string {
    const f = this.data?.files[i];
    return f ? `file:${f.kind}:${f.path}` : '';
  }

  private note(i: number): ReviewNote | undefined {
    const d = this.data;
    if (!d || i < 0) return undefined;
    return i < d.steps.length ? d.steps[i] : d.why[i - d.steps.length];
  }

  private width(): number {
    return Math.max(10, (this.screen.width as number) || 80);
  }

  private draw(): void {
    const W = this.width();
    const H = Math.max(4, (this.screen.height as number) || 24);
    const inner = Math.max(4, W - 2);
    const d = this.data;
    this.fileRows = d ? fileList(d.files, inner, d.base, d.shared) : [];
    this.noteRows = d ? noteList(d.steps, d.why, inner, d.folder) : [];
    const L = layout(W, H, Math.max(1, this.fileRows.length), this.noteRows.length);
    const place = (b: blessed.Widgets.BoxElement, box: { top: number; height: number }): void => {
      b.top = box.top;
      b.height = box.height;
      if (box.height > 0) b.show();
      else b.hide();
    };
    place(this.header, L.header);
    place(this.filesBox, L.files);
    place(this.notesBox, L.notes);
    place(this.diffBox, L.diff);
    place(this.footer, L.footer);

    this.header.setContent(this.headerLines(W).join('\n'));
    this.filesBox.setLabel(this.focus === 'files' ? ' {bold}files{/bold} ' : ' files ');
    this.notesBox.setLabel(this.focus === 'notes' ? ' {bold}notes{/bold} ' : ' notes ');
    const fileH = Math.max(0, L.files.height - 2);
    const noteH = Math.max(0, L.notes.height - 2);
    const fileAt = this.fileRows.findIndex((r) => r.kind === 'item' && r.index === this.fileSel);
    const noteAt = this.noteRows.findIndex((r) => r.kind === 'item' && r.index === this.noteSel);
    this.fileTop = scrollTo(Math.max(0, fileAt), this.fileTop, fileH, this.fileRows.length);
    this.noteTop = scrollTo(Math.max(0, noteAt), this.noteTop, noteH, this.noteRows.length);
    const list = (rows: ListRow[], top: number, h: number, at: number, focused: boolean): string =>
      rows
        .slice(top, top + h)
        .map((r, i) => {
          const t = escapeTags(r.text);
          if (r.kind === 'title') return `{bold}${t}{/bold}`;
          if (top + i !== at) return t;
          return focused ? `{inverse}${t}{/inverse}` : `{underline}${t}{/underline}`;
        })
        .join('\n');
    let files = list(this.fileRows, this.fileTop, fileH, fileAt, this.focus === 'files');
    if (d && !d.problem && d.files.length === 0) files = 'no changes';
    if (d?.problem) files = escapeTags(d.problem);
    if (!d) files = 'looking…';
    this.filesBox.setContent(files);
    this.notesBox.setContent(list(this.noteRows, this.noteTop, noteH, noteAt, this.focus === 'notes'));
    this.drawDiff();
    const foot = this.message ? [` ${escapeTags(fitEnd(this.message, W - 1))}`] : footerLines(W).map((l) => `{bold}${escapeTags(l)}{/bold}`);
    this.footer.setContent(foot.slice(0, L.footer.height).join('\n'));
    this.screen.render();
  }

  private headerLines(W: number): string[] {
    const d = this.data;
    if (!d) return [' {bold}nerdr review{/bold}', ''];
    const who = d.agent ? `${d.agent.name} · ${d.agent.agent} · ${d.agent.state}` : `${d.windowName || d.window} · no agent`;
    const first = ` {bold}${escapeTags(fitEnd(who, W - 1))}{/bold}`;
    if (d.problem || !d.repo) return [first, ` ${escapeTags(fitEnd(d.folder, W - 1))}`];
    const parts = [d.branch ?? (d.head ? `detached ${d.head.slice(0, 8)}` : 'no commits yet')];
    if (d.base) parts.push(`← ${d.base}`);
    if (d.ahead !== null && d.behind !== null) parts.push(`↑${d.ahead} ↓${d.behind}`);
    const n = (k: ReviewFile['kind']): number => d.files.filter((f) => f.kind === k).length;
    const counts = [`${n('staged')}s`, `${n('unstaged')}u`, `${n('untracked')}?`].join(' ');
    return [first, ` ${escapeTags(fitEnd(`${parts.join(' ')} · ${counts}`, W - 1))}`];
  }

  private diffHeight(): number {
    return Math.max(0, (this.diffBox.height as number) - 2);
  }

  private drawDiff(): void {
    const h = this.diffHeight();
    const rows = this.shown.rows;
    this.diffTop = Math.max(0, Math.min(this.diffTop, rows.length - h));
    const body = rows
      .slice(this.diffTop, this.diffTop + h)
      .map((r, i) => tagRow(r, this.diffTop + i === this.shown.mark))
      .join('\n');
    this.diffBox.setContent(this.loading > 0 && rows.length === 0 ? 'loading…' : body);
    const label = this.diffLabel();
    const pos = rows.length > h ? ` ${this.diffTop + 1}-${Math.min(rows.length, this.diffTop + h)}/${rows.length}` : '';
    const text = escapeTags(fitEnd(`${label}${pos}`, Math.max(1, this.width() - 4)));
    this.diffBox.setLabel(this.focus === 'diff' ? ` {bold}${text}{/bold} ` : ` ${text} `);
  }

  private diffLabel(): string {
    const k = this.shown.key;
    if (k.startsWith('file:')) {
      const f = this.selectedFile();
      return f ? `${f.path} (${f.kind})` : 'diff';
    }
    if (k.startsWith('note:')) {
      const n = this.note(this.noteSel);
      const place = n && this.data ? stepPlace(n, this.data.folder) : '';
      return n?.kind === 'step' ? `step ${this.noteSel + 1}${place ? ` · ${place}` : ''}` : 'why';
    }
    return 'diff';
  }

  private setShown(s: Shown, keepScroll = false): void {
    const sameKey = s.key === this.shown.key;
    this.shown = s;
    if (!(keepScroll && sameKey)) {
      // a step's line sits a few rows below the top, with its context above it
      this.diffTop = s.mark >= 0 ? Math.max(0, s.mark - 3) : 0;
    }
    this.draw();
  }

  /** Loads the file's diff into the diff box; `keepScroll` for a refresh of the same file. */
  private showFile(i: number, keepScroll = false): void {
    const d = this.data;
    const f = d?.files[i];
    if (!d || !f) return;
    const key = this.fileKey(i);
    this.wanted = key;
    const req = ++this.request;
    this.loading++;
    this.actions
      .fileDiff(d, f)
      .then(
        (diff) => {
          if (req !== this.request) return;
          this.setShown({ key, rows: compactRows(diffRows(diff)), mark: -1 }, keepScroll);
        },
        (err: Error) => {
          if (req === this.request) this.setShown({ key, rows: [{ kind: 'note', text: `no diff: ${err.message}`, line: null }], mark: -1 });
        },
      )
      .finally(() => {
        this.loading--;
      });
  }

  /** A step shows the diff at its file and line; a why note (or a step without a file) its whole text. */
  private showNote(i: number, fresh = true): void {
    const d = this.data;
    const n = this.note(i);
    if (!d || !n) return;
    const key = `note:${i}:${n.time}`;
    const textRows = (): DiffRow[] => n.text.split('\n').map((t) => ({ kind: 'context' as const, text: t, line: null }));
    this.wanted = key;
    const req = ++this.request;
    if (n.kind === 'why' || !n.file) {
      this.setShown({ key, rows: textRows(), mark: -1 }, !fresh);
      return;
    }
    this.loading++;
    this.actions
      .stepRows(d, n)
      .then(
        (rows) => {
          if (req !== this.request) return;
          rows = compactRows(rows);
          const mark = n.line ? rowForLine(rows, n.line) : -1;
          const head: DiffRow[] = [{ kind: 'note', text: n.text.replace(/\s+/g, ' '), line: null }];
          this.setShown({ key, rows: [...head, ...rows], mark: mark >= 0 ? mark + head.length : -1 }, !fresh);
        },
        (err: Error) => {
          if (req === this.request) this.setShown({ key, rows: [...textRows(), { kind: 'note', text: `no diff: ${err.message}`, line: null }], mark: -1 });
        },
      )
      .finally(() => {
        this.loading--;
      });
  }

  private moveIn(list: 'files' | 'notes', delta: number): void {
    const d = this.data;
    if (!d) return;
    if (list === 'files') {
      const n = d.files.length;
      if (n === 0) return;
      const next = Math.max(0, Math.min(n - 1, this.fileSel + delta));
      if (next === this.fileSel) return;
      this.fileSel = next;
      this.draw();
      this.showFile(next);
    } else {
      const n = d.steps.length + d.why.length;
      if (n === 0) return;
      const next = Math.max(0, Math.min(n - 1, this.noteSel + delta));
      if (next === this.noteSel && this.wanted.startsWith('note:')) return;
      this.noteSel = next;
      this.draw();
      this.showNote(next);
    }
  }

  private scroll(delta: number): void {
    const max = Math.max(0, this.shown.rows.length - this.diffHeight());
    const next = Math.max(0, Math.min(max, this.diffTop + delta));
    if (next === this.diffTop) return;
    this.diffTop = next;
    this.draw();
  }

  private cycleFocus(): void {
    const order: Focus[] = this.noteRows.length ? ['files', 'notes', 'diff'] : ['files', 'diff'];
    this.focus = order[(order.indexOf(this.focus) + 1) % order.length]!;
    if (this.focus === 'notes' && !this.wanted.startsWith('note:')) this.showNote(this.noteSel);
    else if (this.focus === 'files' && !this.wanted.startsWith('file:') && this.fileSel >= 0) this.showFile(this.fileSel);
    this.draw();
  }

  private open(): void {
    if (this.focus === 'files' && this.fileSel >= 0) {
      if (!this.wanted.startsWith('file:')) this.showFile(this.fileSel);
      this.focus = 'diff';
    } else if (this.focus === 'notes' && this.noteSel >= 0) {
      this.showNote(this.noteSel);
      this.focus = 'diff';
    }
    this.draw();
  }

  /** The file and line to edit: the step's, the diff row's under the top, or the selected file's. */
  private editTarget(): { file: string; line: number | null } | null {
    const d = this.data;
    if (!d?.repo) return null;
    if (this.shown.key.startsWith('note:')) {
      const n = this.note(this.noteSel);
      if (n?.file) return { file: n.file, line: n.line };
    }
    const f = this.selectedFile();
    if (!f || f.status === 'D') return null;
    const row = this.shown.rows.slice(this.diffTop).find((r) => r.line !== null && r.kind !== 'hunk');
    return { file: path.join(d.repo, f.path), line: this.shown.key.startsWith('file:') ? (row?.line ?? null) : null };
  }

  private edit(): void {
    const d = this.data;
    const t = this.editTarget();
    if (!d || !t) return this.say('nothing to open here');
    this.actions.edit(d, t.file, t.line).then(
      () => this.say(`opened ${t.file.slice(t.file.lastIndexOf('/') + 1)} in a new window`),
      (err: Error) => this.say(err.message),
    );
  }

  /** The line a comment is about: the first line of the shown file's diff at the top of the box, with its hunk. */
  commentPlace(): CommentPlace | null {
    const f = this.selectedFile();
    if (!this.data?.repo || !f || !this.shown.key.startsWith('file:')) return null;
    const rows = this.shown.rows;
    const at = rows.findIndex((r, i) => i >= this.diffTop && r.line !== null && (r.kind === 'add' || r.kind === 'context'));
    if (at < 0) return null;
    const row = rows[at]!;
    const hunk = rows.slice(0, at).reverse().find((r) => r.kind === 'hunk');
    return { file: f.path, line: row.line!, text: row.text.slice(1), hunk: hunk?.text ?? null };
  }

  private promptComment(): void {
    const d = this.data;
    const place = this.commentPlace();
    if (!d || !place) return this.say("open a file's diff (⏎) and scroll the line to the top first");
    if (!d.agent) return this.say('no agent runs in this window: there is no one to tell');
    this.prompting = true;
    const label = ` comment on ${visible(place.file)}:${place.line} for ${visible(d.agent.name)} (⏎ queues it, esc cancels) `;
    const box = blessed.textbox({ parent: this.screen, bottom: 0, left: 0, width: '100%', height: 3, border: { type: 'line' }, label: escapeTags(label), tags: true, inputOnFocus: false });
    box.focus();
    this.screen.render();
    box.readInput((_err: unknown, value?: string | null) => {
      box.destroy();
      // blessed turns one Enter into two keypresses: the second must not open the diff
      setImmediate(() => (this.prompting = false));
      const text = typeof value === 'string' ? value.trim() : '';
      if (!text) return this.say('no comment queued');
      this.say(`queuing the comment for ${d.agent!.name}…`);
      this.actions.comment(d, place, text).then(
        (said) => this.say(said),
        (err: Error) => this.say(`not queued: ${err.message}`),
      );
    });
  }

  private onKey(ch: string | undefined, key: blessed.Widgets.Events.IKeyEventArg): void {
    if (this.prompting) return;
    const name = key?.full ?? key?.name ?? ch;
    const hadMessage = this.message !== null;
    this.message = null;
    const inDiff = this.focus === 'diff';
    switch (name) {
      case 'up':
      case 'k':
        return inDiff ? this.scroll(-1) : this.moveIn(this.focus as 'files' | 'notes', -1);
      case 'down':
      case 'j':
        return inDiff ? this.scroll(1) : this.moveIn(this.focus as 'files' | 'notes', 1);
      case 'pageup':
      case 'b':
        return this.scroll(-Math.max(1, this.diffHeight() - 1));
      case 'pagedown':
      case 'space':
        return this.scroll(Math.max(1, this.diffHeight() - 1));
      case 'g':
      case 'home':
        return this.scroll(-this.shown.rows.length);
      case 'G':
      case 'S-g':
      case 'end':
        return this.scroll(this.shown.rows.length);
      case 'tab':
        return this.cycleFocus();
      case 'enter':
      case 'return':
        return this.open();
      case 'e':
        return this.edit();
      case 'c':
        return this.promptComment();
      case 'r':
        this.say(REFRESHING);
        return this.actions.refresh();
      case 'escape':
        if (inDiff) {
          this.focus = this.shown.key.startsWith('note:') ? 'notes' : 'files';
          return this.draw();
        }
        return this.quit();
      case 'q':
      case 'C-c':
        return this.quit();
      default:
        if (hadMessage) this.draw();
    }
  }
}

export { screenText } from '../ui/dash.js';
