// JSON text written straight into a buffer, for the few places that write it on every call
// (a span's OTLP JSON, the trace keys spliced into a request): building a string and copying it
// into a buffer afterwards cost the traced gateway several microseconds a call (issue 39). The
// caller makes room first (jsonStringBound); only text JSON must escape, or that is not ASCII,
// goes JSON.stringify's way. Pure.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** `text`, all ASCII, as bytes: for constant pieces encoded once. */
export function asciiBytes(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** Most bytes `text` takes as a JSON string: six a UTF-16 unit (`\uXXXX`), and the quotes. */
export function jsonStringBound(text: string): number {
  return 2 + 6 * text.length;
}

/** A few bytes: a loop, as TypedArray.set costs more to call than to copy this little. */
export function putBytes(buf: Buffer, at: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) buf[at++] = bytes[i]!;
  return at;
}

/** Text known to be ASCII (digits, hex), one byte a character. */
export function putAscii(buf: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) buf[at++] = text.charCodeAt(i);
  return at;
}

/** `text` as a JSON string, quotes included; returns where it ends. */
export function putJsonString(buf: Buffer, at: number, text: string): number {
  const start = at;
  buf[at++] = QUOTE;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c >= 0x80 || c === QUOTE || c === BACKSLASH) return start + buf.write(JSON.stringify(text), start, "utf8");
    buf[at++] = c;
  }
  buf[at++] = QUOTE;
  return at;
}
