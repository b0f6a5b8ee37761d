// Decoding of the octal escapes tmux writes in %output lines and capture-pane -C output:
// every byte below 0x20 and every backslash is `\ooo`; everything else, UTF-8 included,
// arrives raw. The result stays bytes: a UTF-8 sequence or an escape sequence may be cut
// between two notifications, and only the terminal emulator may join them.

export function decodeOctal(line: Uint8Array, start = 0, end = line.length): Buffer {
  const out = Buffer.allocUnsafe(end - start);
  let o = 0;
  for (let i = start; i < end; i++) {
    const b = line[i]!;
    if (b === 0x5c && i + 3 < end) {
      const d1 = line[i + 1]! - 48, d2 = line[i + 2]! - 48, d3 = line[i + 3]! - 48;
      if (d1 >= 0 && d1 <= 3 && d2 >= 0 && d2 <= 7 && d3 >= 0 && d3 <= 7) {
        out[o++] = (d1 << 6) | (d2 << 3) | d3;
        i += 3;
        continue;
      }
    }
    out[o++] = b;
  }
  return out.subarray(0, o);
}
