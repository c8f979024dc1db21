// The gateway's trace context put into a request's `params._meta` by splicing: the body as the
// client wrote it, with `"traceparent":…` (and tracestate, baggage) first in `_meta`, or a new
// `"_meta":{…}` first in `params`. Writing the parsed body out whole instead costs the traced
// hop more than its span does, and grows with the arguments (issue 39). Only where the text says
// unambiguously where the keys go: one `params` object and at most one `_meta` object, no key
// spelt with an escape on the way; anything else is null, and ./rewrite.ts writes it out.
import { isAscii } from "node:buffer";
import { memberAt, skipSpace } from "../../util/json-members.ts";

const OPEN_OBJECT = "{";
const CLOSE_OBJECT = "}";

/** `fields` as members of a JSON object, without the braces. */
function membersText(fields: Readonly<Record<string, string>>): string {
  let text = "";
  for (const key in fields) text += `${text === "" ? "" : ","}${KEY_TEXT[key] ?? JSON.stringify(key)}:${JSON.stringify(fields[key])}`;
  return text;
}

/** The trace keys as JSON text, written on every traced request. */
const KEY_TEXT: Readonly<Record<string, string>> = { traceparent: '"traceparent"', tracestate: '"tracestate"', baggage: '"baggage"' };

/** What JSON.parse made of the request's `params` object: whether it has a `_meta` key (however spelt). */
export interface ParamsShape {
  hasMeta: boolean;
}

/**
 * `raw` (a JSON-RPC request JSON.parse accepted as `text`, whose `params._meta` has no trace
 * keys) with `fields` first in `params._meta`; null when the text leaves room for doubt.
 */
export function spliceTraceFields(raw: Buffer, text: string, fields: Readonly<Record<string, string>>, shape: ParamsShape): Buffer | null {
  const params = memberAt(text, skipSpace(text, 0), "params");
  if (!params || params.value < 0 || text[params.value] !== OPEN_OBJECT) return null;
  if (!shape.hasMeta) return spliceAt(raw, text, { at: params.value, newMeta: true }, fields);
  const meta = memberAt(text, params.value, "_meta");
  if (!meta || meta.value < 0 || text[meta.value] !== OPEN_OBJECT) return null;
  return spliceAt(raw, text, { at: meta.value, newMeta: false }, fields);
}

/**
 * `raw` with `fields` first in the object whose `{` is at `place.at` of its text: `params`, as
 * a new `_meta` (`newMeta`), or a `_meta` that has no trace keys. The place is the caller's to
 * be sure of (./request-head.ts, or memberAt above).
 */
export function spliceAt(raw: Buffer, text: string, place: { at: number; newMeta: boolean }, fields: Readonly<Record<string, string>>): Buffer {
  const at = place.at + 1;
  const members = membersText(fields);
  const empty = text[skipSpace(text, at)] === CLOSE_OBJECT;
  const insert = place.newMeta ? `"_meta":{${members}}${empty ? "" : ","}` : empty ? members : `${members},`;
  return insertAt(raw, text, at, insert);
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
