// The gateway's trace context put into a request's `params._meta` by splicing: the body as the
// client wrote it, with `"traceparent":…` (and tracestate, baggage) first in `_meta`, or a new
// `"_meta":{…}` first in `params`. Writing the parsed body out whole instead costs the traced
// hop more than its span does, and grows with the arguments (issue 39). Where the keys go is
// ./request-head.ts's to say; a body it cannot read unambiguously is written out by ./rewrite.ts.
// The body's own bytes are copied around the insertion, never decoded, and the insertion is
// written straight into the new body (../../util/json-bytes.ts).
import { asciiBytes, jsonStringBound, putBytes, putJsonString } from "../../util/json-bytes.ts";

const NEW_META = asciiBytes('"_meta":{');
const COMMA = 0x2c;
const COLON = 0x3a;
const CLOSE_OBJECT = 0x7d;

/**
 * `raw` with `fields` first in the object whose `{` is at byte `place.at` (`empty`: it has no
 * member): `params`, as a new `_meta` (`newMeta`), or a `_meta` that has no trace keys. The
 * place is the caller's to be sure of (./request-head.ts).
 */
export function spliceAt(raw: Buffer, place: { at: number; newMeta: boolean; empty: boolean }, fields: Readonly<Record<string, string>>): Buffer {
  let bound = NEW_META.length + 2;
  for (const key in fields) bound += 2 + jsonStringBound(key) + jsonStringBound(fields[key]!);
  const out = Buffer.allocUnsafe(raw.length + bound);
  const at = place.at + 1;
  let end = raw.copy(out, 0, 0, at);
  if (place.newMeta) end = putBytes(out, end, NEW_META);
  let first = true;
  for (const key in fields) {
    if (!first) out[end++] = COMMA;
    first = false;
    end = putJsonString(out, end, key);
    out[end++] = COLON;
    end = putJsonString(out, end, fields[key]!);
  }
  if (place.newMeta) out[end++] = CLOSE_OBJECT;
  if (!place.empty) out[end++] = COMMA;
  end += raw.copy(out, end, at);
  return out.subarray(0, end);
}
