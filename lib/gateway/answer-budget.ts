// Answers the gateway rewrites are read whole, parsed and written again; each may be large,
// so the bytes held for them at once, all callers together, are bounded. Beyond the budget a
// request gets a clear 503 with Retry-After instead of the gateway running out of memory.
import type { IncomingMessage } from "node:http";
import { readAll } from "./forward.ts";
import { GatewayError } from "./respond.ts";

const BUSY = (): GatewayError => new GatewayError("gateway_busy", "The gateway is rewriting too many large answers; retry shortly", { "retry-after": "1" });
const TOO_LARGE = (): GatewayError => new GatewayError("upstream_too_large", "The tool server's answer is too large");

export class AnswerBudget {
  #used = 0;

  constructor(readonly totalBytes: number) {}

  /**
   * Reads `answer` whole (at most `max` bytes) within the budget and hands it to `use`, which
   * must finish with it synchronously; the bytes count against the budget until then. A
   * declared Content-Length is reserved before anything is read.
   */
  async rewrite(answer: IncomingMessage, max: number, use: (body: Buffer) => void): Promise<void> {
    const limit = Math.min(max, this.totalBytes);
    let held = 0;
    const reserve = (bytes: number): void => {
      if (held + bytes > limit) throw TOO_LARGE();
      if (this.#used + bytes > this.totalBytes) throw BUSY();
      this.#used += bytes;
      held += bytes;
    };
    try {
      const declared = Number(answer.headers["content-length"]);
      if (Number.isSafeInteger(declared) && declared > 0) reserve(declared);
      use(await readAll(answer, limit, (size) => size > held && reserve(size - held)));
    } catch (err) {
      answer.destroy();
      throw err;
    } finally {
      this.#used -= held;
    }
  }
}
