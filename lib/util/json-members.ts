// Where a member of a JSON object lies in its text, found without building any value: so a key
// can be added to an object deep in a body by splicing text, instead of parsing the body and
// writing it out again. For text JSON.parse has already accepted (the structure is then valid).
// A key spelt with an escape cannot be matched by its characters, so an object that has one
// gets no answer (null), and the caller takes the parse-and-write road.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The index of the first non-space character at or after `at`. */
export function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** Characters of a string read one by one before its end is searched for: a search costs more on short ones. */
const SHORT = 24;

/** Index just after the string whose opening quote is at `at`; -1 if it never closes. */
function stringEnd(text: string, at: number): number {
  const stop = Math.min(text.length, at + SHORT);
  for (let i = at + 1; i < stop; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) break;
  }
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    // A quote after an odd run of backslashes is escaped.
    let k = quote - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((quote - 1 - k) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Index just after the value whose first character is at `at`; -1 if it never ends. */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number or a literal runs to the next comma, closing bracket or space.
    for (let c = first; at < text.length && c !== COMMA && c !== CLOSE_OBJECT && c !== CLOSE_ARRAY && !isSpace(c); c = text.charCodeAt(++at));
    return at;
  }
  let depth = 0;
  while (at < text.length) {
    const c = text.charCodeAt(at);
    if (c === QUOTE) {
      at = stringEnd(text, at);
      if (at < 0) return -1;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return at + 1;
    at++;
  }
  return -1;
}

/** Where the object whose `{` is at `at` has `key`, and how many members it has. */
export interface MemberAt {
  /** Index of the first character of the value of the one member named `key`; -1 when it has none. */
  value: number;
  members: number;
}

/**
 * The one member `key` of the object whose `{` is at `at` in `text`; null when there is no object
 * there, it has `key` more than once, or it spells any of its keys with an escape.
 */
export function memberAt(text: string, at: number, key: string): MemberAt | null {
  if (text.charCodeAt(at) !== OPEN_OBJECT) return null;
  const found: MemberAt = { value: -1, members: 0 };
  at = skipSpace(text, at + 1);
  if (text.charCodeAt(at) === CLOSE_OBJECT) return found;
  for (;;) {
    if (text.charCodeAt(at) !== QUOTE) return null;
    let keyEnd = at + 1;
    for (let c = text.charCodeAt(keyEnd); c !== QUOTE; c = text.charCodeAt(++keyEnd)) if (c === BACKSLASH || keyEnd >= text.length) return null;
    const valueStart = skipSpace(text, skipSpace(text, keyEnd + 1) + 1);
    if (keyEnd - at - 1 === key.length && text.startsWith(key, at + 1)) {
      if (found.value >= 0) return null;
      found.value = valueStart;
    }
    found.members++;
    const end = valueEnd(text, valueStart);
    if (end < 0) return null;
    at = skipSpace(text, end);
    if (text.charCodeAt(at) === CLOSE_OBJECT) return found;
    if (text.charCodeAt(at) !== COMMA) return null;
    at = skipSpace(text, at + 1);
  }
}
