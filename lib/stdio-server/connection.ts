// An MCP client over one child process's stdin and stdout (MCP basic/transports "stdio"):
// the child runs in a process group of its own (util/process-group.ts), messages are lines
// framed as the stdio transport and hub_bridge frame them (stdio/framing.ts), and the
// child's stderr is handed on as its log. Requests get their own ids; every other message
// the child sends (notifications, requests to the client) goes to `onMessage`. When the
// child ends, every request still waiting fails with one StdioServerGone.
import { type ChildProcessHandle, spawnGroup } from "../util/process-group.ts";
import { classify, JsonRpcError, type Params, type RequestId } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import { lineWriter, readLines } from "../stdio/framing.ts";

/** The child ended (or could not start) while a request waited, or before one was sent. */
export class StdioServerGone extends Error {
  readonly code = "HUBMCP_STDIO_SERVER_GONE";
}

export interface ConnectionOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** A notification, or a request from the child (it has an `id`): answer it with `answer`. */
  onMessage(message: Record<string, unknown>): void;
  /** Decoded stderr text as it arrives. */
  onStderr(text: string): void;
  /** The child's output was not MCP (a line that is not JSON, or too long). */
  onMalformed(reason: "parse" | "too-long"): void;
  /** The child ended: its exit code (null on a signal, 127 when it could not start). */
  onExit(code: number | null): void;
}

interface Waiting {
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
}

export class StdioConnection {
  readonly #child: ChildProcessHandle;
  readonly #write: (message: unknown) => void;
  readonly #waiting = new Map<RequestId | null, Waiting>();
  readonly #onMessage: (message: Record<string, unknown>) => void;
  #nextId = 1;
  #gone: StdioServerGone | null = null;

  constructor(command: string, args: readonly string[], options: ConnectionOptions) {
    this.#onMessage = options.onMessage;
    this.#child = spawnGroup(command, args, { env: options.env, cwd: options.cwd, pipes: true, onStderr: options.onStderr });
    // A child that stops reading (it exited) breaks the pipe: its exit, not the write, is what ends requests.
    this.#write = lineWriter(this.#child.stdin!, () => {});
    readLines(this.#child.stdout!, {
      message: (value) => this.#received(value),
      malformed: (reason) => options.onMalformed(reason),
      end: () => {},
    });
    void this.#child.exited.then((code) => {
      this.#gone = new StdioServerGone(
        code === 127 ? "the stdio server could not start" : `the stdio server exited (${code === null ? "killed by a signal" : `code ${code}`})`,
      );
      for (const waiting of this.#waiting.values()) waiting.reject(this.#gone);
      this.#waiting.clear();
      options.onExit(code);
    });
  }

  get pid(): number {
    return this.#child.pid;
  }

  /** Whether the child has ended. */
  get gone(): boolean {
    return this.#gone !== null;
  }

  /**
   * Sends a request; resolves with its result, rejects with the child's JSON-RPC error or
   * StdioServerGone. `onId` learns the id first (to cancel it by).
   */
  request(method: string, params: Params | undefined, onId?: (id: RequestId) => void): Promise<Record<string, unknown>> {
    if (this.#gone) return Promise.reject(this.#gone);
    const id = this.#nextId++;
    onId?.(id);
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#write({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    });
  }

  notify(method: string, params?: Params): void {
    if (!this.#gone) this.#write({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /** Answers a request the child sent. */
  answer(id: RequestId, outcome: { result: unknown } | { error: { code: number; message: string } }): void {
    if (!this.#gone) this.#write({ jsonrpc: "2.0", id, ...outcome });
  }

  /** Closes its stdin (how a stdio server is asked to stop), then stops its group (SIGTERM, SIGKILL after `graceMs`). */
  async close(graceMs = 2_000): Promise<void> {
    this.#child.stdin?.end();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((done) => (timer = setTimeout(done, graceMs)));
    await Promise.race([this.#child.exited, grace]);
    clearTimeout(timer);
    await this.#child.stop(graceMs);
  }

  #received(value: unknown): void {
    const incoming = classify(value);
    if (incoming.kind === "response") {
      const message = incoming.message;
      const waiting = this.#waiting.get(message.id);
      if (!waiting) return;
      this.#waiting.delete(message.id);
      if ("error" in message) waiting.reject(new JsonRpcError(message.error.code, message.error.message, message.error.data));
      else waiting.resolve(isRecord(message.result) ? message.result : {});
      return;
    }
    // A request or notification; a line that is JSON but no JSON-RPC message is nobody's business.
    if (incoming.kind !== "invalid" && isRecord(value)) this.#onMessage(value);
  }
}
