// Reads a request body with a size limit and parses it as JSON.
import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";

export type BodyResult =
  | { ok: true; value: unknown; empty: boolean }
  | { ok: false; reason: "too-large" | "not-json" | "aborted" };

export const DEFAULT_MAX_BODY = 16 * 1024 * 1024;

export function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) {
    req.resume();
    return Promise.resolve({ ok: false, reason: "too-large" });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult): void => {
      if (done) return;
      done = true;
      req.off("data", onData);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.resume();
        finish({ ok: false, reason: "too-large" });
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("error", () => finish({ ok: false, reason: "aborted" }));
    req.once("close", () => finish({ ok: false, reason: "aborted" }));
    req.once("end", () => {
      const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      if (size === 0) return finish({ ok: true, value: undefined, empty: true });
      if (!isUtf8(buf)) return finish({ ok: false, reason: "not-json" });
      try {
        let text = buf.toString("utf8");
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        finish({ ok: true, value: JSON.parse(text), empty: false });
      } catch {
        finish({ ok: false, reason: "not-json" });
      }
    });
  });
}
