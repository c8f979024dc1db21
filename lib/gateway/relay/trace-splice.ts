// The gateway's trace context put into a request's `params._meta` by splicing text: the body as
// the client wrote it, with `"traceparent":…` (and tracestate, baggage) first in `_meta`, or a
// new `"_meta":{…}` first in `params`. Writing the parsed body out whole instead costs the traced
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

/**
 * `text` (a JSON-RPC request JSON.parse accepted, whose `params._meta` has no trace keys) with
 * `fields` first in `params._meta`; null when the text leaves room for doubt.
 */
export function spliceTraceFields(text: string, fields: Readonly<Record<string, string>>): Buffer | null {
  const params = memberAt(text, skipSpace(text, 0), "params");
  if (!params || params.value < 0) return null;
  const meta = memberAt(text, params.value, "_meta");
  if (!meta) return null;
  const members = membersText(fields);
  let at: number;
  let insert: string;
  if (meta.value < 0) {
    at = params.value + 1;
    insert = `"_meta":{${members}}${meta.members > 0 ? "," : ""}`;
  } else {
    if (text[meta.value] !== OPEN_OBJECT) return null;
    at = meta.value + 1;
    insert = text[skipSpace(text, at)] === CLOSE_OBJECT ? members : `${members},`;
  }
  return Buffer.from(text.slice(0, at) + insert + text.slice(at));
}
