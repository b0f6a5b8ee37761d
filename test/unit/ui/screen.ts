// A blessed screen on fake streams, sized like a popup, for tests that look at what is drawn.

import { PassThrough, Writable } from 'node:stream';
import blessed from 'blessed';

export function fakeScreen(cols = 100, rows = 30): { screen: blessed.Widgets.Screen; key: (name: string, ch?: string) => void; destroy: () => void } {
  const input = new PassThrough() as PassThrough & { isTTY?: boolean; setRawMode?: (b: boolean) => void };
  input.isTTY = true;
  input.setRawMode = () => undefined;
  const output = new Writable({ write: (_c, _e, cb) => cb() }) as Writable & { columns: number; rows: number; isTTY: boolean };
  output.columns = cols;
  output.rows = rows;
  output.isTTY = true;
  const screen = blessed.screen({ input, output, terminal: 'xterm-256color', warnings: false, fullUnicode: true, autoPadding: false } as unknown as blessed.Widgets.IScreenOptions);
  const key = (name: string, ch?: string): void => {
    const full = name;
    screen.program.emit('keypress', ch, { name, full, ch, sequence: ch ?? '', ctrl: name.startsWith('C-'), meta: false, shift: false });
  };
  return { screen, key, destroy: () => screen.destroy() };
}
