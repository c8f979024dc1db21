// What a client's Accept header lets us answer with. MCP clients send
// `application/json, text/event-stream`; curl sends `*/*` or nothing, and both mean "anything".

export interface Acceptable {
  json: boolean;
  sse: boolean;
}

const ANY: Acceptable = { json: true, sse: true };

/** Reads media ranges with their q values; a range with q=0 is refused. */
export function parseAccept(header: string | undefined): Acceptable {
  if (header === undefined || header.trim() === "") return ANY;
  let json = false;
  let sse = false;
  for (const part of header.split(",")) {
    const [rawType, ...params] = part.split(";");
    const type = rawType!.trim().toLowerCase();
    if (params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(p))) continue;
    if (type === "*/*") return ANY;
    if (type === "application/json" || type === "application/*") json = true;
    else if (type === "text/event-stream" || type === "text/*") sse = true;
  }
  return { json, sse };
}

/** Fast path: the common headers decide without splitting. */
export function acceptFor(header: string | undefined): Acceptable {
  if (header === undefined || header === "*/*") return ANY;
  if (header === "application/json") return { json: true, sse: false };
  return parseAccept(header);
}
