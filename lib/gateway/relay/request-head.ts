// What the gateway reads of a JSON-RPC request to name its span and audit line and to carry its
// trace context on (method, id, `params.name`, where `params` and `params._meta` open), read
// from the text without building it. JSON.parse made every key and short value a string V8
// looks up in its table, and the objects around them: on the traced hop it was the largest
// single cost, several times what it takes in a loop (issue 39).
//
// The scan answers only when JSON.parse would accept the whole text and would read the same:
// every value is checked to the grammar (skipped ones too), and a key the gateway reads that is
// spelt with an escape, given twice, or not of the expected type makes it answer null, as do a
// `_meta` carrying trace keys and anything nested deeper than MAX_DEPTH. The caller then parses.
// So a tool server (whose parser, like JSON.parse, takes the last of duplicate keys) never sees
// a method or tool name other than the one the gateway recorded. Pure: no I/O.

/** What the scan read. Positions are indexes into the text. */
export interface RequestHead {
  method: string;
  /** Absent: undefined. */
  id: string | number | null | undefined;
  /** `params.name` when it is a string. */
  name?: string;
  /** Index of the `{` that opens `params`; -1 when there is no `params`. */
  paramsAt: number;
  /** Whether `params` has no member. */
  paramsEmpty: boolean;
  /** Index of the `{` that opens `params._meta`; -1 when it has none. */
  metaAt: number;
  /** Whether `params._meta` has no member. */
  metaEmpty: boolean;
}

const MAX_DEPTH = 64;
const TRACE_KEYS = new Set(["traceparent", "tracestate", "baggage"]);

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

/** One string or value read: where it ends, and (for a string) whether it has escapes. -1: not JSON. */
class Cursor {
  /** Set by string(): whether the last string read had a backslash. */
  escaped = false;

  constructor(readonly text: string) {}

  space(at: number): number {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(at);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return at;
      at++;
    }
  }

  /** After the string whose quote is at `at`; -1 if it is not a JSON string. */
  string(at: number): number {
    const text = this.text;
    this.escaped = false;
    for (let i = at + 1; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) return i + 1;
      if (c < 0x20) return -1;
      if (c === BACKSLASH) {
        this.escaped = true;
        const e = text.charCodeAt(++i);
        if (e === LOWER_U) {
          for (let k = 0; k < 4; k++) if (!isHex(text.charCodeAt(++i))) return -1;
        } else if (!ESCAPES.has(e)) return -1;
      }
    }
    return -1;
  }

  /** After the number at `at`; -1 if it is not a JSON number. */
  number(at: number): number {
    const text = this.text;
    if (text.charCodeAt(at) === MINUS) at++;
    if (text.charCodeAt(at) === ZERO) at++;
    else if (isDigit(text.charCodeAt(at))) while (isDigit(text.charCodeAt(at))) at++;
    else return -1;
    if (text.charCodeAt(at) === DOT) {
      if (!isDigit(text.charCodeAt(++at))) return -1;
      while (isDigit(text.charCodeAt(at))) at++;
    }
    const e = text.charCodeAt(at);
    if (e === LOWER_E || e === UPPER_E) {
      const sign = text.charCodeAt(++at);
      if (sign === PLUS || sign === MINUS) at++;
      if (!isDigit(text.charCodeAt(at))) return -1;
      while (isDigit(text.charCodeAt(at))) at++;
    }
    return at;
  }

  /** After the value whose first character is at `at` (spaces skipped before it, not after); -1 if it is not JSON. */
  value(at: number, depth: number): number {
    const text = this.text;
    const c = text.charCodeAt(at);
    if (c === QUOTE) return this.string(at);
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth >= MAX_DEPTH) return -1;
      const close = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
      at = this.space(at + 1);
      if (text.charCodeAt(at) === close) return at + 1;
      for (;;) {
        if (close === CLOSE_OBJECT) {
          if (text.charCodeAt(at) !== QUOTE) return -1;
          at = this.string(at);
          if (at < 0) return -1;
          at = this.space(at);
          if (text.charCodeAt(at) !== COLON) return -1;
          at = this.space(at + 1);
        }
        at = this.value(at, depth + 1);
        if (at < 0) return -1;
        at = this.space(at);
        const next = text.charCodeAt(at);
        if (next === close) return at + 1;
        if (next !== COMMA) return -1;
        at = this.space(at + 1);
      }
    }
    if (c === MINUS || isDigit(c)) return this.number(at);
    for (const literal of LITERALS) if (text.startsWith(literal, at)) return at + literal.length;
    return -1;
  }
}

const ESCAPES = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const LITERALS = ["true", "false", "null"];

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/**
 * Reads the members of the object whose `{` is at `at`: `onMember` gets each key (never one
 * spelt with an escape) and where its value starts, and returns where that value ends (-1 to
 * stop: not JSON, or a member the caller will not read). After the `}`, or -1.
 */
function members(cur: Cursor, at: number, onMember: (key: string, from: number) => number): number {
  const text = cur.text;
  at = cur.space(at + 1);
  if (text.charCodeAt(at) === CLOSE_OBJECT) return at + 1;
  for (;;) {
    if (text.charCodeAt(at) !== QUOTE) return -1;
    const keyEnd = cur.string(at);
    // A key spelt with an escape could be any key: the caller parses instead.
    if (keyEnd < 0 || cur.escaped) return -1;
    const key = text.slice(at + 1, keyEnd - 1);
    at = cur.space(keyEnd);
    if (text.charCodeAt(at) !== COLON) return -1;
    at = onMember(key, cur.space(at + 1));
    if (at < 0) return -1;
    at = cur.space(at);
    const next = text.charCodeAt(at);
    if (next === CLOSE_OBJECT) return at + 1;
    if (next !== COMMA) return -1;
    at = cur.space(at + 1);
  }
}

/** An unescaped string value's characters, or undefined when the value is not such a string. */
function plainString(cur: Cursor, from: number, to: number): string | undefined {
  if (cur.text.charCodeAt(from) !== QUOTE) return undefined;
  cur.string(from);
  return cur.escaped ? undefined : cur.text.slice(from + 1, to - 1);
}

/** What JSON.parse would read of a JSON-RPC request's head, or null when the scan cannot be sure (see the top of this file). */
export function scanRequest(text: string): RequestHead | null {
  const cur = new Cursor(text);
  const start = cur.space(0);
  if (text.charCodeAt(start) !== OPEN_OBJECT) return null;
  const head: RequestHead = { method: "", id: undefined, paramsAt: -1, paramsEmpty: true, metaAt: -1, metaEmpty: true };
  let method: string | undefined;
  let hasId = false;
  const end = members(cur, start, (key, from) => {
    const c = text.charCodeAt(from);
    if (key === "method") {
      if (method !== undefined) return -1;
      const to = cur.value(from, 1);
      method = to < 0 ? undefined : plainString(cur, from, to);
      return method === undefined ? -1 : to;
    }
    if (key === "id") {
      if (hasId) return -1;
      hasId = true;
      const to = cur.value(from, 1);
      if (to < 0) return -1;
      if (c === QUOTE) head.id = plainString(cur, from, to);
      else if (c === MINUS || isDigit(c)) head.id = Number(text.slice(from, to));
      else if (text.startsWith("null", from)) head.id = null;
      return head.id === undefined ? -1 : to;
    }
    if (key === "params") {
      if (head.paramsAt >= 0 || c !== OPEN_OBJECT) return -1;
      head.paramsAt = from;
      return params(cur, head, from);
    }
    return cur.value(from, 1);
  });
  if (end < 0 || method === undefined || cur.space(end) !== text.length) return null;
  head.method = method;
  return head;
}

/** Reads `params` (its `{` at `at`) into `head`: its name and where its `_meta` opens. After its `}`, or -1. */
function params(cur: Cursor, head: RequestHead, at: number): number {
  const text = cur.text;
  let named = false;
  return members(cur, at, (key, from) => {
    head.paramsEmpty = false;
    if (key === "_meta") {
      if (head.metaAt >= 0 || text.charCodeAt(from) !== OPEN_OBJECT) return -1;
      head.metaAt = from;
      // Trace keys there are the client's, to be read and replaced: the caller parses.
      return members(cur, from, (metaKey, value) => {
        head.metaEmpty = false;
        return TRACE_KEYS.has(metaKey) ? -1 : cur.value(value, 3);
      });
    }
    const to = cur.value(from, 2);
    if (to < 0) return -1;
    if (key === "name") {
      if (named) return -1;
      named = true;
      if (text.charCodeAt(from) !== QUOTE) return to;
      head.name = plainString(cur, from, to);
      return head.name === undefined ? -1 : to;
    }
    return to;
  });
}
