// Reading a Content-Type header, decided once: the media type (lower case, parameters
// dropped) and the charset parameter. The gateway and hub_bridge tell an event-stream answer
// from a JSON one here, the OAuth token endpoint a JSON body from a form.
import type { IncomingHttpHeaders } from "node:http";

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/** `type/subtype` in lower case, without parameters; "" when there is no header. */
export function mediaTypeOf(header: string | undefined): string {
  if (header === undefined) return "";
  const semi = header.indexOf(";");
  return (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
}

/** The charset parameter as sent, or undefined when the header names none. */
export function charsetOf(header: string | undefined): string | undefined {
  return header === undefined ? undefined : CHARSET.exec(header)?.[1];
}

/** Whether a response (or request) is an event stream. */
export function isEventStream(message: { headers: IncomingHttpHeaders }): boolean {
  return mediaTypeOf(message.headers["content-type"]) === "text/event-stream";
}
