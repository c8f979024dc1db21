// Reads a request body with a size limit and parses it as JSON.
import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";

export type BodyResult =
  | { ok: true; value: unknown; empty: boolean }
  | { ok: false; reason: "too-large" | "not-json" | "aborted" };

export const DEFAULT_MAX_BODY = 16 * 1024 * 1024;

const TOO_LARGE: BodyResult = Object.freeze({ ok: false, reason: "too-large" });
const NOT_JSON: BodyResult = Object.freeze({ ok: false, reason: "not-json" });
const ABORTED: BodyResult = Object.freeze({ ok: false, reason: "aborted" });
const EMPTY: BodyResult = Object.freeze({ ok: true, value: undefined, empty: true });

export function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => readJsonBodyThen(req, limit, resolve));
}

/**
 * readJsonBody for the hot path: `done` runs once with the result, and no promise is made.
 * A body arrives in one chunk far more often than not, so the chunk list is made only for
 * a second one.
 */
export function readJsonBodyThen(req: IncomingMessage, limit: number, done: (result: BodyResult) => void): void {
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) {
    req.resume();
    return done(TOO_LARGE);
  }
  let first: Buffer | null = null;
  let more: Buffer[] | null = null;
  let size = 0;
  let finished = false;
  const finish = (result: BodyResult): void => {
    if (finished) return;
    finished = true;
    req.off("data", onData);
    done(result);
  };
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) {
      first = more = null;
      req.resume();
      return finish(TOO_LARGE);
    }
    if (first === null) first = chunk;
    else (more ??= [first]).push(chunk);
  };
  // `close` also follows a complete body, and then finds it finished; `on`, not `once`,
  // spares a wrapper per listener per request.
  const onAbort = (): void => finish(ABORTED);
  req.on("data", onData);
  req.on("error", onAbort);
  req.on("close", onAbort);
  req.on("end", () => {
    if (finished) return;
    if (size === 0 || first === null) return finish(EMPTY);
    finish(parseJson(more === null ? first : Buffer.concat(more, size)));
  });
}

function parseJson(buf: Buffer): BodyResult {
  if (!isUtf8(buf)) return NOT_JSON;
  try {
    let text = buf.toString("utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return { ok: true, value: JSON.parse(text), empty: false };
  } catch {
    return NOT_JSON;
  }
}
