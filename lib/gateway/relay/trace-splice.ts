// The gateway's trace context put into a request's `params._meta` by splicing: the body as the
// client wrote it, with `"traceparent":…` (and tracestate, baggage) first in `_meta`, or a new
// `"_meta":{…}` first in `params`. Writing the parsed body out whole instead costs the traced
// hop more than its span does, and grows with the arguments (issue 39). Only where the text says
// unambiguously where the keys go: one `params` object and at most one `_meta` object, no key
// spelt with an escape on the way; anything else is null, and ./rewrite.ts writes it out.
import { memberAt, skipSpace } from "../../util/json-members.ts";

const OPEN_OBJECT = "{";
const CLOSE_OBJECT = "}";

/** `fields` as members of a JSON object, without the braces. */
function membersText(fields: Readonly<Record<string, string>>): string {
  let text = "";
  for (const key in fields) text += `${text === "" ? "" : ","}${JSON.stringify(key)}:${JSON.stringify(fields[key])}`;
  return text;
}

/** What JSON.parse made of the request's `params` object: whether it has a `_meta` key (however spelt) and any key at all. */
export interface ParamsShape {
  hasMeta: boolean;
  empty: boolean;
}

/**
 * `raw` (a JSON-RPC request JSON.parse accepted as `text`, whose `params._meta` has no trace
 * keys) with `fields` first in `params._meta`; null when the text leaves room for doubt.
 */
export function spliceTraceFields(raw: Buffer, text: string, fields: Readonly<Record<string, string>>, shape: ParamsShape): Buffer | null {
  const params = memberAt(text, skipSpace(text, 0), "params");
  if (!params || params.value < 0 || text[params.value] !== OPEN_OBJECT) return null;
  const members = membersText(fields);
  let at: number;
  let insert: string;
  if (!shape.hasMeta) {
    // No `_meta` in any spelling: params need not be read through for one.
    at = params.value + 1;
    insert = `"_meta":{${members}}${shape.empty ? "" : ","}`;
  } else {
    const meta = memberAt(text, params.value, "_meta");
    if (!meta || meta.value < 0 || text[meta.value] !== OPEN_OBJECT) return null;
    at = meta.value + 1;
    insert = text[skipSpace(text, at)] === CLOSE_OBJECT ? members : `${members},`;
  }
  return insertAt(raw, text, at, insert);
}

/** `raw` with `insert` at character `at` of its text: copied as bytes where both are ASCII up to there (the bytes then line up). */
function insertAt(raw: Buffer, text: string, at: number, insert: string): Buffer {
  const head = text.slice(0, at);
  if (Buffer.byteLength(head) !== at || Buffer.byteLength(insert) !== insert.length) return Buffer.from(head + insert + text.slice(at));
  const out = Buffer.allocUnsafe(raw.length + insert.length);
  raw.copy(out, 0, 0, at);
  out.write(insert, at, "latin1");
  raw.copy(out, at + insert.length, at);
  return out;
}
