// Reading a file whose size is not ours to choose (a skill author's, another account's)
// without letting it choose our memory: the size is taken from the open descriptor before
// anything is read, and the read itself stops one byte past the bound, so a file that grows
// after it was measured, or lies about its size, cannot make it overrun.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

export type BoundedRead = { kind: "ok"; bytes: Buffer } | { kind: "too_large" } | { kind: "not_a_file" };

const CHUNK = 64 * 1024;

/**
 * The bytes of the regular file at `path` when it holds at most `max` bytes. Opened without
 * following a link or waiting on a pipe; a directory, FIFO or device is `not_a_file`.
 * Errors of the file system (it vanished, no permission) are thrown as they are.
 */
export function readFileAtMost(path: string, max: number): BoundedRead {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: "not_a_file" };
    if (st.size > max) return { kind: "too_large" };
    // One byte more than the size said: reading it means the file grew.
    let buf = Buffer.allocUnsafe(st.size + 1);
    let length = 0;
    for (;;) {
      if (length === buf.length) {
        if (length > max) return { kind: "too_large" };
        const grown = Buffer.allocUnsafe(Math.min(length + CHUNK, max + 1));
        buf.copy(grown, 0, 0, length);
        buf = grown;
      }
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) break;
      length += n;
    }
    // The end came before the buffer was full, and the buffer never exceeds max + 1 bytes.
    return { kind: "ok", bytes: buf.subarray(0, length) };
  } finally {
    closeSync(fd);
  }
}
