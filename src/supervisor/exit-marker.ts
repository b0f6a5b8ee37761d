// Finds the exit guard's marker (EXIT_MARKER, create.ts) in each pane's %output, split anywhere
// between chunks. The marker has one ESC, its first byte, so a partial match at a chunk's end
// starts at the chunk's last ESC: the hot path is one native search per chunk.

import { EXIT_MARKER } from './create.js';

const MARKER = Buffer.from(EXIT_MARKER, 'latin1');
const ESC = 0x1b;

export class ExitMarkers {
  /** Panes whose last chunk ended in the first n bytes of the marker. */
  private readonly partial = new Map<string, number>();

  /** True when a marker ends in this chunk of the pane's output. */
  feed(pane: string, data: Uint8Array): boolean {
    const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.length);
    const had = this.partial.get(pane);
    if (had !== undefined) {
      this.partial.delete(pane);
      const n = Math.min(MARKER.length - had, buf.length);
      if (buf.compare(MARKER, had, had + n, 0, n) === 0) {
        if (had + n === MARKER.length) return true;
        this.partial.set(pane, had + n);
        return false;
      }
    }
    if (buf.indexOf(MARKER) >= 0) return true;
    const from = Math.max(0, buf.length - (MARKER.length - 1));
    const i = buf.lastIndexOf(ESC);
    if (i >= from && buf.compare(MARKER, 0, buf.length - i, i) === 0) this.partial.set(pane, buf.length - i);
    return false;
  }

  /** The pane is gone. */
  forget(pane: string): void {
    this.partial.delete(pane);
  }
}
