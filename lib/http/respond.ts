// Writing JSON answers: the one writer. Each side (tool server, gateway, OAuth server)
// binds it once to its CORS profile and the headers all its answers carry; the shape of
// the body stays the side's own (it is contract: `{error}` here, `{error, message}` on the
// gateway, `{error, error_description}` for OAuth).
import type { ServerResponse } from "node:http";
import { wireHeaders, wireStatus } from "../util/errors.ts";
import { CORS, type CorsProfile } from "./cors.ts";

export interface JsonStyle {
  /** None: the answers carry no CORS headers, and browsers on other origins cannot read them. */
  cors?: CorsProfile;
  /** Headers every answer of this side carries (cache policy). */
  headers?: Readonly<Record<string, string>>;
  /**
   * When the head has already gone out (a stream, say), a JSON answer cannot follow:
   * "end" closes the response as it is, "destroy" cuts it so the client sees the failure.
   */
  started: "end" | "destroy";
}

export type SendJson = (res: ServerResponse, status: number, body: unknown, headers?: Readonly<Record<string, string>>) => void;

export function jsonWriter(style: JsonStyle): SendJson {
  const base = Object.freeze({ ...style.cors?.actual, ...style.headers });
  return (res, status, body, headers) => {
    if (res.headersSent) {
      if (style.started === "end") res.end();
      else res.destroy();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { ...base, ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
}

/** The tool server's CORS headers, for the streams it opens itself. */
export const CORS_HEADERS = CORS.toolServer.actual;

/** The tool server's JSON answers. */
export const sendJson: SendJson = jsonWriter({ cors: CORS.toolServer, started: "end" });

/**
 * sendJson for JSON-RPC answers, the hot path: the same headers in the same order, written
 * as literals (no spreads to copy) with the session named when there is one.
 */
export function sendRpcJson(res: ServerResponse, status: number, body: unknown, sessionId: string | null): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  const length = Buffer.byteLength(text);
  res.writeHead(
    status,
    sessionId === null
      ? {
          "access-control-allow-origin": CORS_HEADERS["access-control-allow-origin"],
          "access-control-expose-headers": CORS_HEADERS["access-control-expose-headers"],
          "content-type": "application/json",
          "content-length": length,
        }
      : {
          "access-control-allow-origin": CORS_HEADERS["access-control-allow-origin"],
          "access-control-expose-headers": CORS_HEADERS["access-control-expose-headers"],
          "mcp-session-id": sessionId,
          "content-type": "application/json",
          "content-length": length,
        },
  );
  res.end(text);
}

/** `{error}` bodies of the tool server's REST-style routes and of HTTP-level failures. */
export function sendError(res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void {
  sendJson(res, status, { error: message }, headers);
}

/** A request body past the size limit, answered by every tool-server route alike (status and headers as declared). */
export function sendTooLarge(res: ServerResponse): void {
  sendError(res, wireStatus("body_too_large"), "Request body too large", wireHeaders("body_too_large"));
}
