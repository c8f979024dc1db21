// What the gateway reads of a JSON-RPC request to name its span and audit line and to carry its
// trace context on (method, id, `params.name`, where `params` and `params._meta` open), read
// from the body's bytes without decoding or building it. JSON.parse made every key and short
// value a string V8 looks up in its table, and the objects around them: on the traced hop it
// was the largest single cost, several times what it takes in a loop; decoding the body to scan
// its text, and the text back to bytes to splice it, cost as much again (issue 39).
//
// The scan answers only when JSON.parse would accept the whole body decoded as UTF-8 and would
// read the same: every value is checked to the grammar (skipped ones too), and a key the gateway
// reads that is spelt with an escape, given twice, or not of the expected type makes it answer
// null, as do a `_meta` carrying trace keys and anything nested deeper than MAX_DEPTH. The
// caller then parses. So a tool server (whose parser, like JSON.parse, takes the last of
// duplicate keys) never sees a method or tool name other than the one the gateway recorded.
// Bytes stand for the text because UTF-8 never uses an ASCII byte inside another character,
// and a decoder replaces a broken sequence without taking the ASCII byte after it. Pure: no I/O.

/** What the scan read. Positions are byte offsets into the body. */
export interface RequestHead {
  method: string;
  /** Absent: undefined. */
  id: string | number | null | undefined;
  /** `params.name` when it is a string. */
  name?: string;
  /** Offset of the `{` that opens `params`; -1 when there is no `params`. */
  paramsAt: number;
  /** Whether `params` has no member. */
  paramsEmpty: boolean;
  /** Offset of the `{` that opens `params._meta`; -1 when it has none. */
  metaAt: number;
  /** Whether `params._meta` has no member. */
  metaEmpty: boolean;
}

const MAX_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const LOWER_U = 0x75;

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const METHOD = bytes("method");
const ID = bytes("id");
const PARAMS = bytes("params");
const NAME = bytes("name");
const META = bytes("_meta");
const TRACE_KEYS = [bytes("traceparent"), bytes("tracestate"), bytes("baggage")];
const TRUE = bytes("true");
const FALSE = bytes("false");
const NULL = bytes("null");

/** Set by stringEnd: whether the last string read had a backslash. */
let escaped = false;

function space(b: Uint8Array, at: number): number {
  while (at < b.length) {
    const c = b[at]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return at;
    at++;
  }
  return at;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && (isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46));
}

/** `"`, `\`, `/`, b, f, n, r, t: what may follow a backslash, besides u. */
function isEscape(c: number | undefined): boolean {
  return c === QUOTE || c === BACKSLASH || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74;
}

/** After the string whose quote is at `at`; -1 if it is not a JSON string. Sets `escaped`. */
function stringEnd(b: Uint8Array, at: number): number {
  escaped = false;
  for (let i = at + 1; i < b.length; i++) {
    const c = b[i]!;
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      escaped = true;
      const e = b[++i];
      if (e === LOWER_U) {
        for (let k = 0; k < 4; k++) if (!isHex(b[++i])) return -1;
      } else if (!isEscape(e)) return -1;
    }
  }
  return -1;
}

/** After the number at `at`; -1 if it is not a JSON number. */
function numberEnd(b: Uint8Array, at: number): number {
  if (b[at] === MINUS) at++;
  if (b[at] === ZERO) at++;
  else if (isDigit(b[at])) while (isDigit(b[at])) at++;
  else return -1;
  if (b[at] === DOT) {
    if (!isDigit(b[++at])) return -1;
    while (isDigit(b[at])) at++;
  }
  const e = b[at];
  if (e === LOWER_E || e === UPPER_E) {
    const sign = b[++at];
    if (sign === PLUS || sign === MINUS) at++;
    if (!isDigit(b[at])) return -1;
    while (isDigit(b[at])) at++;
  }
  return at;
}

/** Whether the bytes from `at` are `word`. */
function startsWith(b: Uint8Array, at: number, word: Uint8Array): boolean {
  if (at + word.length > b.length) return false;
  for (let i = 0; i < word.length; i++) if (b[at + i] !== word[i]) return false;
  return true;
}

/** Whether the key between the quotes at `from` and `to - 1` is `word`. */
function keyIs(b: Uint8Array, from: number, to: number, word: Uint8Array): boolean {
  return to - from - 2 === word.length && startsWith(b, from + 1, word);
}

/** After the value whose first byte is at `at` (spaces skipped before it, not after); -1 if it is not JSON. */
function valueEnd(b: Uint8Array, at: number, depth: number): number {
  const c = b[at];
  if (c === QUOTE) return stringEnd(b, at);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    if (depth >= MAX_DEPTH) return -1;
    const close = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
    at = space(b, at + 1);
    if (b[at] === close) return at + 1;
    for (;;) {
      if (close === CLOSE_OBJECT) {
        if (b[at] !== QUOTE) return -1;
        at = stringEnd(b, at);
        if (at < 0) return -1;
        at = space(b, at);
        if (b[at] !== COLON) return -1;
        at = space(b, at + 1);
      }
      at = valueEnd(b, at, depth + 1);
      if (at < 0) return -1;
      at = space(b, at);
      const next = b[at];
      if (next === close) return at + 1;
      if (next !== COMMA) return -1;
      at = space(b, at + 1);
    }
  }
  if (c === MINUS || isDigit(c)) return numberEnd(b, at);
  if (startsWith(b, at, TRUE)) return at + TRUE.length;
  if (startsWith(b, at, FALSE)) return at + FALSE.length;
  if (startsWith(b, at, NULL)) return at + NULL.length;
  return -1;
}

/**
 * The members of the object whose `{` is at `at`, one at a time: `readMember` gets the key's
 * quotes (never a key spelt with an escape) and where its value starts, and returns where that
 * value ends (-1 to stop: not JSON, or a member the caller will not read). After the `}`, or -1.
 */
function membersEnd(
  b: Buffer,
  at: number,
  head: RequestHead,
  readMember: (b: Buffer, head: RequestHead, keyFrom: number, keyTo: number, from: number) => number,
): number {
  at = space(b, at + 1);
  if (b[at] === CLOSE_OBJECT) return at + 1;
  for (;;) {
    if (b[at] !== QUOTE) return -1;
    const keyTo = stringEnd(b, at);
    // A key spelt with an escape could be any key: the caller parses instead.
    if (keyTo < 0 || escaped) return -1;
    const colon = space(b, keyTo);
    if (b[colon] !== COLON) return -1;
    const end = readMember(b, head, at, keyTo, space(b, colon + 1));
    if (end < 0) return -1;
    at = space(b, end);
    const next = b[at];
    if (next === CLOSE_OBJECT) return at + 1;
    if (next !== COMMA) return -1;
    at = space(b, at + 1);
  }
}

/** An unescaped string value's text, or undefined when the value at `from` is not such a string. */
function plainString(b: Buffer, from: number): string | undefined {
  if (b[from] !== QUOTE) return undefined;
  const to = stringEnd(b, from);
  return to < 0 || escaped ? undefined : b.toString("utf8", from + 1, to - 1);
}

/** Set while a scan runs: which of the keys read once have been seen. */
let seenMethod = false;
let seenId = false;
let seenName = false;

function topMember(b: Buffer, head: RequestHead, keyFrom: number, keyTo: number, from: number): number {
  if (keyIs(b, keyFrom, keyTo, METHOD)) {
    if (seenMethod) return -1;
    seenMethod = true;
    const method = plainString(b, from);
    if (method === undefined) return -1;
    head.method = method;
    return stringEnd(b, from);
  }
  if (keyIs(b, keyFrom, keyTo, ID)) {
    if (seenId) return -1;
    seenId = true;
    const to = valueEnd(b, from, 1);
    if (to < 0) return -1;
    const c = b[from];
    if (c === QUOTE) head.id = plainString(b, from);
    else if (c === MINUS || isDigit(c)) head.id = Number(b.toString("latin1", from, to));
    else if (c === NULL[0]) head.id = null;
    return head.id === undefined ? -1 : to;
  }
  if (keyIs(b, keyFrom, keyTo, PARAMS)) {
    if (head.paramsAt >= 0 || b[from] !== OPEN_OBJECT) return -1;
    head.paramsAt = from;
    return membersEnd(b, from, head, paramsMember);
  }
  return valueEnd(b, from, 1);
}

function paramsMember(b: Buffer, head: RequestHead, keyFrom: number, keyTo: number, from: number): number {
  head.paramsEmpty = false;
  if (keyIs(b, keyFrom, keyTo, META)) {
    if (head.metaAt >= 0 || b[from] !== OPEN_OBJECT) return -1;
    head.metaAt = from;
    return membersEnd(b, from, head, metaMember);
  }
  const to = valueEnd(b, from, 2);
  if (to < 0 || !keyIs(b, keyFrom, keyTo, NAME)) return to;
  if (seenName) return -1;
  seenName = true;
  if (b[from] !== QUOTE) return to;
  head.name = plainString(b, from);
  return head.name === undefined ? -1 : to;
}

function metaMember(b: Buffer, head: RequestHead, keyFrom: number, keyTo: number, from: number): number {
  head.metaEmpty = false;
  // Trace keys here are the client's, to be read and replaced: the caller parses.
  for (const key of TRACE_KEYS) if (keyIs(b, keyFrom, keyTo, key)) return -1;
  return valueEnd(b, from, 3);
}

/** What JSON.parse would read of a JSON-RPC request's head, or null when the scan cannot be sure (see the top of this file). */
export function scanRequest(body: Buffer): RequestHead | null {
  const start = space(body, 0);
  if (body[start] !== OPEN_OBJECT) return null;
  const head: RequestHead = { method: "", id: undefined, paramsAt: -1, paramsEmpty: true, metaAt: -1, metaEmpty: true };
  seenMethod = seenId = seenName = false;
  const end = membersEnd(body, start, head, topMember);
  if (end < 0 || !seenMethod || space(body, end) !== body.length) return null;
  return head;
}
