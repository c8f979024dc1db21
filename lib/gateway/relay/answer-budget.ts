// Answers the gateway rewrites are read whole, parsed and written again; each may be large,
// so the memory held for them at once, all callers together, is bounded. Beyond the budget a
// request gets a clear 503 with Retry-After instead of the gateway running out of memory.
//
// The budget counts what is held, not only the bytes read: parsing makes a string of the
// bytes and a tree of values, and writing makes a string and a buffer again. The tree's size
// depends on the answer's shape (V8 spends about 64 bytes on an empty object, 20 on a
// number in an array), so its charge is counted from the bytes that open values, by one pass
// over them (`rewriteCost`). And the written answer is held until it has left, so a client
// that reads nothing keeps its charge instead of parking memory outside the budget.
import type { IncomingMessage, ServerResponse } from "node:http";
import { readAll } from "./forward.ts";
import { GatewayError } from "../contracts/respond.ts";

const BUSY = (): GatewayError => new GatewayError("gateway_busy", "The gateway is rewriting too many large answers; retry shortly", { "retry-after": "1" });
const TOO_LARGE = (): GatewayError => new GatewayError("upstream_too_large", "The tool server's answer is too large");

/** Copies of the bytes a rewrite holds at its peak: the bytes, their string, the strings parsed from it, the written string, its buffer. */
const COPIES = 5;
/** V8's cost of what each byte opens, on 64-bit Node 20 (measured, with some margin): an object, an array, a member or element. */
const OBJECT_BYTES = 64;
const ARRAY_BYTES = 32;
const MEMBER_BYTES = 24;

/**
 * Bytes a parse-and-rewrite of `raw` may hold at its peak: an upper bound for every shape of
 * JSON (a value's slot is counted at the `,`, `:` or `[` before it, strings and numbers as
 * copies of their bytes), about 8× the size of a typical listing, 5× for one long string and 35× for `[{},{},…]`.
 */
export function rewriteCost(raw: Uint8Array): number {
  let objects = 0;
  let arrays = 0;
  let members = 0;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (b === 0x2c || b === 0x3a) members++;
    else if (b === 0x7b) objects++;
    else if (b === 0x5b) arrays++;
  }
  return raw.length * COPIES + objects * OBJECT_BYTES + arrays * (ARRAY_BYTES + MEMBER_BYTES) + members * MEMBER_BYTES;
}

/** Resolves once what was written to `res` has left the process, or the connection is gone. */
export function untilSent(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    res.once("finish", resolve);
    res.once("close", resolve);
  });
}

/** Charges bytes more against the budget for the answer being rewritten; throws when they do not fit. */
export type Charge = (bytes: number) => void;

export class AnswerBudget {
  #used = 0;

  constructor(readonly totalBytes: number) {}

  /**
   * Reads `answer` whole (at most `max` bytes) within the budget and hands it to `use`, which
   * charges the copies it is about to make (`rewriteCost` of the bytes, when it parses them)
   * and may return a promise of the moment it no longer holds them (`untilSent`); the charge
   * stands until then. A declared Content-Length is reserved before anything is read.
   */
  async rewrite(answer: IncomingMessage, max: number, use: (body: Buffer, charge: Charge) => unknown): Promise<void> {
    const limit = Math.min(max, this.totalBytes);
    let held = 0;
    const reserve = (bytes: number, most: number): void => {
      if (held + bytes > most) throw TOO_LARGE();
      if (this.#used + bytes > this.totalBytes) throw BUSY();
      this.#used += bytes;
      held += bytes;
    };
    try {
      const declared = Number(answer.headers["content-length"]);
      if (Number.isSafeInteger(declared) && declared > 0) reserve(declared, limit);
      const body = await readAll(answer, limit, (size) => size > held && reserve(size - held, limit));
      // The raw bytes are one of the copies a rewrite charges: charged again only beyond them.
      const base = held;
      await use(body, (bytes) => reserve(Math.max(0, bytes - base), this.totalBytes));
    } catch (err) {
      answer.destroy();
      throw err;
    } finally {
      this.#used -= held;
    }
  }
}
