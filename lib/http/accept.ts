// What a client's Accept header lets us answer with. MCP clients send
// `application/json, text/event-stream`; curl sends `*/*` or nothing. Both mean "anything",
// but only a client that names the event stream gets its POST answered as one, so curl
// users always see plain JSON.

export interface Acceptable {
  json: boolean;
  sse: boolean;
  /** The header names text/event-stream (or text/*): a POST reply may become a stream. */
  streams: boolean;
}

const ANY: Acceptable = { json: true, sse: true, streams: false };
const JSON_ONLY: Acceptable = { json: true, sse: false, streams: false };
const MCP_CLIENT: Acceptable = { json: true, sse: true, streams: true };

/** Reads media ranges with their q values; a range with q=0 is refused. */
export function parseAccept(header: string | undefined): Acceptable {
  if (header === undefined || header.trim() === "") return ANY;
  let json = false;
  let sse = false;
  let any = false;
  for (const part of header.split(",")) {
    const [rawType, ...params] = part.split(";");
    const type = rawType!.trim().toLowerCase();
    if (params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(p))) continue;
    if (type === "*/*") any = true;
    else if (type === "application/json" || type === "application/*") json = true;
    else if (type === "text/event-stream" || type === "text/*") sse = true;
  }
  return { json: json || any, sse: sse || any, streams: sse };
}

/** Fast path: the common headers decide without splitting. */
export function acceptFor(header: string | undefined): Acceptable {
  if (header === undefined || header === "*/*") return ANY;
  if (header === "application/json") return JSON_ONLY;
  if (header === "application/json, text/event-stream") return MCP_CLIENT;
  return parseAccept(header);
}
