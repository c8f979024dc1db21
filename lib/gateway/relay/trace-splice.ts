// The gateway's trace context put into a request's `params._meta` by splicing: the body as the
// client wrote it, with `"traceparent":…` (and tracestate, baggage) first in `_meta`, or a new
// `"_meta":{…}` first in `params`. Writing the parsed body out whole instead costs the traced
// hop more than its span does, and grows with the arguments (issue 39). Where the keys go is
// ./request-head.ts's to say; a body it cannot read unambiguously is written out by ./rewrite.ts.
import { isAscii } from "node:buffer";

/** `fields` as members of a JSON object, without the braces. */
function membersText(fields: Readonly<Record<string, string>>): string {
  let text = "";
  for (const key in fields) text += `${text === "" ? "" : ","}${KEY_TEXT[key] ?? JSON.stringify(key)}:${JSON.stringify(fields[key])}`;
  return text;
}

/** The trace keys as JSON text, written on every traced request. */
const KEY_TEXT: Readonly<Record<string, string>> = { traceparent: '"traceparent"', tracestate: '"tracestate"', baggage: '"baggage"' };

/**
 * `raw` with `fields` first in the object whose `{` is at `place.at` of its text (`empty`: it
 * has no member): `params`, as a new `_meta` (`newMeta`), or a `_meta` that has no trace keys.
 * The place is the caller's to be sure of (./request-head.ts).
 */
export function spliceAt(raw: Buffer, text: string, place: { at: number; newMeta: boolean; empty: boolean }, fields: Readonly<Record<string, string>>): Buffer {
  const members = membersText(fields);
  const insert = place.newMeta ? `"_meta":{${members}}${place.empty ? "" : ","}` : place.empty ? members : `${members},`;
  return insertAt(raw, text, place.at + 1, insert);
}

/**
 * `raw` with `insert` at character `at` of its text. An ASCII body is its own text in Latin-1, so
 * the text is written once; otherwise its own bytes go around the insertion where the text before
 * it is ASCII (the bytes then line up), and only a body with other characters before the place is
 * written from its text.
 */
function insertAt(raw: Buffer, text: string, at: number, insert: string): Buffer {
  if (isAscii(raw) && isAsciiText(insert)) return Buffer.from(text.slice(0, at) + insert + text.slice(at), "latin1");
  if (!isAscii(raw.subarray(0, at))) return Buffer.from(text.slice(0, at) + insert + text.slice(at));
  return Buffer.concat([raw.subarray(0, at), Buffer.from(insert), raw.subarray(at)]);
}

function isAsciiText(text: string): boolean {
  return Buffer.byteLength(text) === text.length;
}
