// A request body, read whole up to a limit: a larger one is a 413 before it is all read.
import type { IncomingMessage } from "node:http";
import { GatewayError } from "./respond.ts";

export function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > max) return Promise.reject(new GatewayError(413, "body_too_large", `The request body is larger than ${max} bytes`, { connection: "close" }));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners("data");
        req.resume();
        reject(new GatewayError(413, "body_too_large", `The request body is larger than ${max} bytes`, { connection: "close" }));
        return;
      }
      chunks.push(chunk);
    });
    // Most bodies arrive in one chunk: no copy then.
    req.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once("error", () => reject(new GatewayError(400, "body_aborted", "The request body broke off")));
  });
}
