// A stdio MCP server kept running like an app: started (and initialised) on first use, its
// stderr the log, and after a crash started again by the next request. A server that keeps
// crashing is not restarted in a loop: after the second crash in a row the next start waits
// out a window that doubles each time (requests in it fail at once, saying when it ends),
// and a run that stayed up `stableMs` forgets the count.
import { traceEnv, type TraceContext } from "../util/trace-context.ts";
import type { Params, RequestId } from "../util/jsonrpc.ts";
import { StdioConnection, StdioServerGone } from "./connection.ts";

export interface Backoff {
  /** The window after the second crash in a row; doubled for each one after. */
  firstMs: number;
  maxMs: number;
  /** A run this long resets the count. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { firstMs: 1_000, maxMs: 60_000, stableMs: 60_000 };

/** Characters of one stderr line that reach the log; lines of one run that do. */
const LINE_CHARS = 2_000;
const RUN_LINES = 10_000;

export interface SupervisorOptions {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** The initialize params sent to each run (capabilities, clientInfo). */
  initialize: Params;
  /** A line for the operator's log: the child's stderr, and starts and exits (never its command line). */
  log(line: string): void;
  /** A notification or request from the current run. */
  onMessage(message: Record<string, unknown>, connection: StdioConnection): void;
  /** A run initialised (the first or a restart): its initialize result. */
  onStarted(init: Record<string, unknown>, connection: StdioConnection): void | Promise<void>;
  backoff?: Backoff;
}

export class StdioSupervisor {
  readonly #options: SupervisorOptions;
  readonly #backoff: Backoff;
  #current: { connection: StdioConnection; ready: Promise<Record<string, unknown>> } | null = null;
  #crashes = 0;
  #notBefore = 0;
  #closed = false;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
  }

  /** The running server's connection, started (with `trace` in its environment) when there is none. */
  async connection(trace?: TraceContext): Promise<StdioConnection> {
    if (this.#closed) throw new StdioServerGone("the stdio server has stopped");
    if (!this.#current) {
      const wait = this.#notBefore - Date.now();
      if (wait > 0) throw new StdioServerGone(`the stdio server crashed ${this.#crashes} times in a row; it is started again in ${Math.ceil(wait / 1000)} s`);
      this.#current = this.#start(trace);
    }
    const current = this.#current;
    await current.ready;
    return current.connection;
  }

  /** A request on the running server (started first when needed). */
  async request(
    method: string,
    params: Params | undefined,
    options: { trace?: TraceContext; onId?: (id: RequestId, connection: StdioConnection) => void } = {},
  ) {
    const connection = await this.connection(options.trace);
    return connection.request(method, params, (id) => options.onId?.(id, connection));
  }

  /** Stops the running server; no other starts after. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#current?.connection.close();
  }

  #start(trace: TraceContext | undefined): { connection: StdioConnection; ready: Promise<Record<string, unknown>> } {
    const options = this.#options;
    const startedAt = Date.now();
    let lines = 0;
    let partial = "";
    const logLine = (line: string): void => {
      if (++lines <= RUN_LINES) options.log(`[stdio server] ${line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line}`);
      else if (lines === RUN_LINES + 1) options.log(`[stdio server] (more than ${RUN_LINES} lines of output in this run: the rest is not logged)`);
    };
    const connection: StdioConnection = new StdioConnection(options.command, options.args, {
      env: traceEnv(options.env, trace),
      cwd: options.cwd,
      onMessage: (message) => options.onMessage(message, connection),
      onStderr: (text) => {
        const parts = (partial + text).split(/\r?\n/);
        partial = parts.pop()!.slice(0, LINE_CHARS);
        for (const line of parts) logLine(line);
      },
      onMalformed: (reason) => options.log(`stdio server: it wrote ${reason === "parse" ? "a line that is not JSON" : "a line too long"} on stdout; skipped`),
      onExit: (code) => {
        if (partial) logLine(partial);
        if (this.#current?.connection === connection) this.#current = null;
        if (this.#closed) return;
        this.#crashes = Date.now() - startedAt >= this.#backoff.stableMs ? 1 : this.#crashes + 1;
        const window = this.#crashes < 2 ? 0 : Math.min(this.#backoff.maxMs, this.#backoff.firstMs * 2 ** (this.#crashes - 2));
        this.#notBefore = Date.now() + window;
        const how = code === null ? "was killed by a signal" : code === 127 ? "could not start" : `exited with code ${code}`;
        options.log(`stdio server: it ${how}; ${window > 0 ? `the next start waits ${Math.ceil(window / 1000)} s` : "the next request starts it again"}`);
      },
    });
    // A program that cannot be run has no pid: its exit (code 127) says so.
    if (connection.pid > 0) options.log(`stdio server: started (pid ${connection.pid})`);
    const ready = (async () => {
      const init = await connection.request("initialize", options.initialize);
      connection.notify("notifications/initialized");
      await options.onStarted(init, connection);
      return init;
    })();
    ready.catch(() => {
      // A server that answers but will not initialise is stopped: the next request tries a new one.
      // Nobody may be waiting yet (the first start): the failure is the next caller's to see.
      if (this.#current?.connection !== connection) return;
      this.#current = null;
      void connection.close();
    });
    return { connection, ready };
  }
}
