// Reading a message body whole, up to a size limit: the one reader, for requests (the tool
// server, the gateway, the OAuth server) and for answers read back (the gateway from a
// tool server, the bridge from the gateway). Failures carry stable codes; ./status.ts maps
// them to statuses.
import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";

/** A JSON body that does not parse is `HUBMCP_BODY_NOT_JSON` (readJsonBody reports it as a result). */
export type BodyErrorCode = "HUBMCP_BODY_TOO_LARGE" | "HUBMCP_BODY_ABORTED" | "HUBMCP_BODY_NOT_JSON";

const MESSAGES: Record<BodyErrorCode, (limit: number) => string> = {
  HUBMCP_BODY_TOO_LARGE: (limit) => `The request body is larger than ${limit} bytes`,
  HUBMCP_BODY_ABORTED: () => "The request body broke off",
  HUBMCP_BODY_NOT_JSON: () => "The request body is not JSON",
};

export class BodyError extends Error {
  constructor(
    readonly code: BodyErrorCode,
    readonly limit: number,
    /** For HUBMCP_BODY_ABORTED: the stream's own error, when it had one (ECONNRESET, say). */
    cause?: unknown,
  ) {
    super(MESSAGES[code](limit), cause === undefined ? undefined : { cause });
    this.name = "BodyError";
  }
}

export interface ReadBodyOptions {
  /**
   * What happens to the rest of a body over the limit: "drain" reads and drops it, so the
   * connection can still carry the 413 (requests); "destroy" cuts it (answers read back).
   */
  overflow?: "drain" | "destroy";
  /** Sees the size so far before each chunk is kept, and may refuse it by throwing. */
  grow?: (size: number) => void;
}

type Raw = { ok: true; body: Buffer | null } | { ok: false; error: unknown };

export type BodyResult = { ok: true; value: unknown; empty: boolean } | { ok: false; reason: "too-large" | "not-json" | "aborted" };

export const DEFAULT_MAX_BODY = 16 * 1024 * 1024;

const TOO_LARGE: BodyResult = Object.freeze({ ok: false, reason: "too-large" });
const NOT_JSON: BodyResult = Object.freeze({ ok: false, reason: "not-json" });
const ABORTED: BodyResult = Object.freeze({ ok: false, reason: "aborted" });
const EMPTY: BodyResult = Object.freeze({ ok: true, value: undefined, empty: true });

/**
 * The body, whole: `done` runs once, with null for an empty body. A body arrives in one
 * chunk far more often than not, so the chunk list is made only for a second one, and no
 * promise is made (the tool server's hot path).
 */
function readRaw(stream: IncomingMessage, limit: number, options: ReadBodyOptions, done: (raw: Raw) => void): void {
  let first: Buffer | null = null;
  let more: Buffer[] | null = null;
  let size = 0;
  let finished = false;
  const finish = (raw: Raw): void => {
    if (finished) return;
    finished = true;
    stream.off("data", onData);
    done(raw);
  };
  const refuse = (error: unknown): void => {
    first = more = null;
    if (options.overflow === "destroy") stream.destroy();
    else stream.resume();
    finish({ ok: false, error });
  };
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) return refuse(new BodyError("HUBMCP_BODY_TOO_LARGE", limit));
    if (options.grow) {
      try {
        options.grow(size);
      } catch (err) {
        return refuse(err);
      }
    }
    if (first === null) first = chunk;
    else (more ??= [first]).push(chunk);
  };
  if (Number(stream.headers["content-length"]) > limit) return refuse(new BodyError("HUBMCP_BODY_TOO_LARGE", limit));
  // `close` also follows a complete body, and then finds it finished; `on`, not `once`,
  // spares a wrapper per listener per request.
  // The error is made only for a body that really broke off: every complete body closes too,
  // and an error's stack costs more than the rest of the read.
  const onAbort = (cause?: unknown): void => {
    if (!finished) finish({ ok: false, error: new BodyError("HUBMCP_BODY_ABORTED", limit, cause) });
  };
  stream.on("data", onData);
  stream.on("error", onAbort);
  stream.on("close", onAbort);
  stream.on("end", () => finish({ ok: true, body: first === null || size === 0 ? null : more === null ? first : Buffer.concat(more, size) }));
}

/** The body as bytes (empty for none); rejects with a BodyError, or with what `grow` threw. */
export function readBody(stream: IncomingMessage, limit: number, options: ReadBodyOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => readRaw(stream, limit, options, (raw) => (raw.ok ? resolve(raw.body ?? Buffer.alloc(0)) : reject(raw.error))));
}

export function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => readJsonBodyThen(req, limit, resolve));
}

/** readJsonBody for the hot path: `done` runs once with the result, and no promise is made. */
export function readJsonBodyThen(req: IncomingMessage, limit: number, done: (result: BodyResult) => void): void {
  readRaw(req, limit, {}, (raw) => {
    if (!raw.ok) return done((raw.error as BodyError).code === "HUBMCP_BODY_TOO_LARGE" ? TOO_LARGE : ABORTED);
    done(raw.body === null ? EMPTY : parseJson(raw.body));
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
