// The inbox as clients see it: one row per thing that waits for a person (`nerdr.inbox`), and
// what `nerdr.answer` takes and answers. The supervisor builds the rows (src/inbox/); the CLI,
// the dashboard, the web page and the fleet read them. docs/inbox.md.

/** What an option of a dialog does, as nerdr reads its label. */
export type OptionKind = 'approve' | 'always' | 'deny' | 'choice' | 'text';

export interface DialogOption {
  /** Its number as the agent shows it (1-based); for a row of choices, its place from the left. */
  n: number;
  /** Its label as the screen shows it (control characters made visible). */
  label: string;
  kind: OptionKind;
}

/** A dialog on an agent's screen: its text and options, as read from the screen. */
export interface Dialog {
  /** The dialog's text above its options, one line per screen line. */
  text: string;
  options: DialogOption[];
  /** Index into options of the one the agent has selected now (its marker); 0 when none is seen. */
  selected: number;
  /** `list`: numbered options one per line (↑/↓); `row`: choices on one line (←/→). */
  layout: 'list' | 'row';
}

export type InboxKind = 'blocked' | 'done' | 'limited' | 'stalled' | 'queued';

export interface InboxRow {
  /**
   * Stable while the thing waits: for a blocked agent the prompt id (from the dialog's text and
   * the time it appeared: another dialog is another id); for a finished turn, the window and the
   * time it finished; for a queued message, its message id.
   */
  id: string;
  kind: InboxKind;
  /** The window (@N), its name, its agent. */
  window: string;
  name: string;
  agent: string;
  session: string;
  /** When it began to wait (ms since the epoch). */
  since: number;
  /** A line for people: the dialog's question, the turn's last line, the message's first line. */
  summary: string;
  /** blocked: the dialog read from the screen; null when nerdr cannot read one (then `lines`). */
  dialog: Dialog | null;
  /** Whether `nerdr answer` can type this agent's keys for it (its integration knows its dialogs). */
  answerable: boolean;
  /** blocked without a dialog read, done: the last lines of its screen; limited: when it resets. */
  lines: string[];
  /** queued, stalled: the message's text (queued), or how many wait (stalled). */
  message: { id: string; text: string; position: number; queuedAt: number } | null;
  /** The fleet host the row comes from; null here. */
  host: string | null;
}

/** What `nerdr.answer` chooses: an option's kind, its number, or free text for a question that takes it. */
export type AnswerChoice = 'approve' | 'always' | 'deny' | number;

export interface AnswerResult {
  target: string;
  prompt: string;
  /** The option chosen, as the dialog showed it. */
  option: DialogOption | null;
  /** The keys typed (tmux key names; free text as one literal). */
  keys: string[];
}
