// Shared pieces of the async specs: promises the test settles by hand, a controllable
// clock, and small JSON-RPC helpers over real HTTP.
import { post, rpc, type Reply } from "../helpers/rpc.ts";

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** A clock the test moves by hand. */
export function manualClock(start = Date.UTC(2026, 0, 1)): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** A JSON-RPC client bound to one server URL and, once initialized, one session. */
export class RpcClient {
  readonly url: string;
  sessionId: string | null = null;
  #id = 0;
  constructor(baseUrl: string) {
    this.url = `${baseUrl}mcp`;
  }

  async initialize(capabilities: Record<string, unknown> = {}, protocolVersion = "2025-11-25"): Promise<Reply> {
    const reply = await post(this.url, rpc(++this.#id, "initialize", { protocolVersion, capabilities, clientInfo: { name: "spec", version: "1" } }));
    this.sessionId = reply.headers.get("mcp-session-id");
    return reply;
  }

  /** The raw JSON-RPC response. */
  async call(method: string, params: Record<string, unknown> = {}): Promise<any> {
    const headers: Record<string, string> = this.sessionId ? { "mcp-session-id": this.sessionId } : {};
    const reply = await post(this.url, rpc(++this.#id, method, params), headers);
    return reply.json;
  }

  /** The `result` of a successful call; fails the test on a JSON-RPC error. */
  async result(method: string, params: Record<string, unknown> = {}): Promise<any> {
    const response = await this.call(method, params);
    if (response.error) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
    return response.result;
  }
}

/** The job object inside a `tools/call` / `get_job_result` text block. */
export const jobOf = (result: { content: { text: string }[] }): any => JSON.parse(result.content[0]!.text);
