// `--debug`: one line per request on the log (method, path, status, time, session),
// taken from the http.Server's own events so the HTTP layer stays untouched. Bodies,
// query strings, Authorization, Cookie and the weber path's cookie segment are never logged.
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from "node:http";
import { namedSessionId } from "../http/session-ref.ts";
import { redactCookie } from "./hub.ts";

type WriteHeadArgs = [number, (string | OutgoingHttpHeaders | unknown[])?, (OutgoingHttpHeaders | unknown[])?];

/** The session id among writeHead's arguments (object or flat-array headers). */
function sessionIn(args: WriteHeadArgs): string | undefined {
  for (const headers of args.slice(1)) {
    if (Array.isArray(headers)) {
      for (let i = 0; i + 1 < headers.length; i += 2) {
        if (String(headers[i]).toLowerCase() === "mcp-session-id") return String(headers[i + 1]);
      }
    } else if (headers && typeof headers === "object") {
      for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === "mcp-session-id") return String(value);
    }
  }
  return undefined;
}

function sessionOf(req: IncomingMessage, res: ServerResponse, minted: string | undefined): string {
  const set = res.getHeader("mcp-session-id");
  if (typeof set === "string" && set) return set;
  if (minted) return minted;
  const q = (req.url ?? "").indexOf("?");
  return namedSessionId(req, q === -1 ? undefined : new URLSearchParams((req.url ?? "").slice(q + 1))) ?? "-";
}

export function requestLine(req: IncomingMessage, res: ServerResponse, ms: number, minted?: string): string {
  const raw = req.url ?? "/";
  const cut = raw.search(/[?#]/);
  const path = redactCookie(cut === -1 ? raw : raw.slice(0, cut));
  const status = res.headersSent ? String(res.statusCode) : "---";
  const ended = res.writableFinished ? "" : " (closed early)";
  return `${req.method ?? "?"} ${path} ${status} ${ms.toFixed(1)}ms session=${sessionOf(req, res, minted)}${ended}`;
}

/** Logs every request of `server` through `write`; returns the detach function. */
export function attachRequestLog(server: Server, write: (line: string) => void, now: () => number = () => performance.now()): () => void {
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const start = now();
    let minted: string | undefined;
    // Headers handed straight to writeHead are not readable afterwards, so note the session on the way.
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: WriteHeadArgs) {
      minted = sessionIn(args);
      return (writeHead as (...a: WriteHeadArgs) => ServerResponse).apply(this, args);
    } as ServerResponse["writeHead"];
    res.once("close", () => write(requestLine(req, res, now() - start, minted)));
  };
  // First in line, so the wrapper is in place before the app answers synchronously.
  server.prependListener("request", onRequest);
  return () => server.off("request", onRequest);
}
