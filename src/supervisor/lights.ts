// Per-window lights (@nerdr_state, @nerdr_light) and the global @nerdr_summary.
// Every set-option repaints every attached client, so updates are sent only on change,
// debounced, and batched into one command line.

import type { AgentState } from '../types.js';
import { command } from '../tmux/quote.js';

export type LightKind = AgentState | 'background' | 'stalled';

export const DEFAULT_GLYPHS: Record<LightKind, string> = {
  working: '#[fg=yellow]●#[default]',
  background: '#[fg=cyan]◐#[default]',
  blocked: '#[fg=red,bold]●#[default]',
  done: '#[fg=green,bold]●#[default]',
  idle: '#[fg=colour245]○#[default]',
  unknown: '#[fg=colour245]◌#[default]',
  exited: '#[fg=colour240]✕#[default]',
  stalled: '#[fg=magenta]⏸#[default]',
};

export interface WindowLight {
  state: AgentState;
  kind: LightKind;
  /** Extra text after the glyph, e.g. a queue count. Plain text: # is escaped. */
  suffix?: string;
}

export function lightText(light: WindowLight, glyphs: Record<LightKind, string> = DEFAULT_GLYPHS): string {
  const suffix = light.suffix ? light.suffix.replace(/#/g, '##') : '';
  return glyphs[light.kind] + suffix;
}

const SUMMARY_ORDER: [AgentState, string, string][] = [
  ['blocked', 'red,bold', '✋'],
  ['done', 'green,bold', '✓'],
  ['working', 'yellow', '⏳'],
  ['idle', 'colour245', '○'],
];

export function summaryText(states: Iterable<AgentState>): string {
  const counts = new Map<AgentState, number>();
  for (const s of states) counts.set(s, (counts.get(s) ?? 0) + 1);
  const parts: string[] = [];
  for (const [state, colour, glyph] of SUMMARY_ORDER) {
    const n = counts.get(state);
    if (n) parts.push(`#[fg=${colour}]${glyph}${n}`);
  }
  return parts.length ? `${parts.join(' ')}#[default] ` : '';
}

export type SendLine = (commands: string[], done: (ok: boolean[]) => void) => void;

export class LightsWriter {
  private readonly wanted = new Map<string, { state: string; light: string }>();
  private readonly applied = new Map<string, { state: string; light: string }>();
  private appliedSummary: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private inFlight = false;
  private lastFlush = 0;
  /** Number of command lines sent, for the benchmark and tests. */
  lines = 0;

  constructor(
    private readonly send: SendLine,
    private readonly debounceMs = 100,
    private readonly minIntervalMs = 250,
    private readonly glyphs: Record<LightKind, string> = DEFAULT_GLYPHS,
  ) {}

  set(windowId: string, light: WindowLight): void {
    const next = { state: light.state, light: lightText(light, this.glyphs) };
    const cur = this.wanted.get(windowId);
    if (cur && cur.state === next.state && cur.light === next.light) return;
    this.wanted.set(windowId, next);
    this.schedule();
  }

  remove(windowId: string): void {
    this.wanted.delete(windowId);
    this.applied.delete(windowId);
    this.schedule();
  }

  /** Forget what tmux has (after a reconnect or a config reload): everything is re-sent. */
  invalidate(): void {
    this.applied.clear();
    this.appliedSummary = null;
    this.schedule();
  }

  summary(): string {
    return summaryText([...this.wanted.values()].map((w) => w.state as AgentState));
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer || this.inFlight) return;
    const wait = Math.max(this.debounceMs, this.lastFlush + this.minIntervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
    this.timer.unref?.();
  }

  private flush(): void {
    const cmds: string[] = [];
    const sent: [string, { state: string; light: string }][] = [];
    for (const [win, want] of this.wanted) {
      const have = this.applied.get(win);
      if (have && have.state === want.state && have.light === want.light) continue;
      cmds.push(command('set-option', '-w', '-t', win, '@nerdr_state', want.state));
      cmds.push(command('set-option', '-w', '-t', win, '@nerdr_light', want.light));
      sent.push([win, want]);
    }
    const summary = this.summary();
    const sendSummary = summary !== this.appliedSummary;
    if (sendSummary) cmds.push(command('set-option', '-g', '@nerdr_summary', summary));
    if (cmds.length === 0) return;
    this.inFlight = true;
    this.lastFlush = Date.now();
    this.lines++;
    this.send(cmds, (ok) => {
      this.inFlight = false;
      sent.forEach(([win, want], i) => {
        // a window that vanished fails its set-option and cuts the line short: the rest is
        // retried on the next flush, the vanished one is removed by the window scan
        if (ok[i * 2] && ok[i * 2 + 1]) this.applied.set(win, want);
      });
      if (sendSummary && ok[ok.length - 1]) this.appliedSummary = summary;
      const pending = [...this.wanted].some(([w, want]) => {
        const have = this.applied.get(w);
        return !have || have.state !== want.state || have.light !== want.light;
      });
      if (pending || this.summary() !== this.appliedSummary) {
        // a failure is retried once the window scan had a chance to remove dead windows
        if (ok.every(Boolean)) this.schedule();
        else setTimeout(() => this.schedule(), 500).unref?.();
      }
    });
  }
}
