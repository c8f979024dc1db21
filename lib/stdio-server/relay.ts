// Any stdio MCP server served as a hubmcp server: its catalogue registered (./catalog.ts),
// each call relayed to the child through the supervisor (./supervisor.ts), and what the
// child sends mid-call carried back through the call's tool context, which already knows
// every transport: progress (by the token this relay gave the call), logging, elicitation,
// sampling and roots (asked of the caller of the latest running call: a stdio server's
// request names no call), cancellation both ways, and list changes (the list is read again).
import { McpServer } from "../server.ts";
import type { ToolContext } from "../mcp/context.ts";
import type { SamplingRequest } from "../mcp/client-features.ts";
import type { LogLevel } from "../session/session.ts";
import { ErrorCode, JsonRpcError, type Params, type RequestId } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import { traceFields } from "../util/trace-context.ts";
import { packageVersion } from "../util/cli-entry.ts";
import { RelayedCatalog, type ListKind } from "./catalog.ts";
import type { StdioConnection } from "./connection.ts";
import { type Backoff, StdioSupervisor } from "./supervisor.ts";

export interface StdioRelayOptions {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Lines for the operator: the child's stderr, starts, exits, entries not published. */
  log(line: string): void;
  backoff?: Backoff;
}

const LIST_NOTIFICATIONS: Record<string, ListKind[]> = {
  "notifications/tools/list_changed": ["tools"],
  "notifications/resources/list_changed": ["resources", "templates"],
  "notifications/prompts/list_changed": ["prompts"],
};

const CANCELLED = { content: [{ type: "text", text: "cancelled" }], isError: true };

const LEVELS = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

/** Starts the stdio server, reads its catalogue, and resolves with a hubmcp server serving it. */
export async function relayStdioServer(options: StdioRelayOptions): Promise<{ server: McpServer; close(): Promise<void> }> {
  const relay = new StdioRelay(options);
  await relay.supervisor.connection();
  return { server: relay.server!, close: () => relay.supervisor.close() };
}

class StdioRelay {
  readonly supervisor: StdioSupervisor;
  server: McpServer | null = null;
  #catalog: RelayedCatalog | null = null;
  /** The run whose lists are read: the one that started last. */
  #connection: StdioConnection | null = null;
  /** Running calls by the progress token this relay gave them, oldest first. */
  readonly #calls = new Map<string, ToolContext>();
  #nextToken = 1;
  /** Requests the child sent and then cancelled: their answers are not sent. */
  readonly #dropped = new Set<RequestId>();
  readonly #log: (line: string) => void;

  constructor(options: StdioRelayOptions) {
    this.#log = options.log;
    this.supervisor = new StdioSupervisor({
      ...options,
      initialize: {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} },
        clientInfo: { name: "hubmcp", version: packageVersion() },
      },
      onMessage: (message, connection) => this.#fromChild(message, connection),
      onStarted: (init, connection) => this.#started(init, connection),
    });
  }

  async #started(init: Record<string, unknown>, connection: StdioConnection): Promise<void> {
    const info = isRecord(init.serverInfo) ? init.serverInfo : {};
    const caps = isRecord(init.capabilities) ? init.capabilities : {};
    if (!this.server) {
      const name = typeof info.name === "string" && info.name.trim() ? info.name : "stdio-server";
      const version = typeof info.version === "string" && info.version ? { version: info.version } : {};
      const instructions = typeof init.instructions === "string" ? { instructions: init.instructions } : {};
      this.server = new McpServer(name, { ...version, ...instructions });
    }
    // Every level reaches the relay; each session's own logging/setLevel filters what it is sent.
    if (isRecord(caps.logging)) await connection.request("logging/setLevel", { level: "debug" }).catch(() => {});
    this.#connection = connection;
    this.#catalog ??= new RelayedCatalog(this.server, {
      callTool: (name, args, ctx) => (ctx ? this.#call(name, args, ctx as ToolContext) : this.supervisor.request("tools/call", { name, arguments: args })),
      read: (uri) => this.#read(uri),
      getPrompt: (name, args) => this.supervisor.request("prompts/get", { name, arguments: args }),
      ...(isRecord(caps.completions) ? { complete: (ref, name, value, others) => this.#complete(ref, name, value, others) } : {}),
      skipped: (what, reason) => this.#log(`stdio server: ${what} not published: ${reason}`),
    });
    const kinds: ListKind[] = [];
    if (isRecord(caps.tools)) kinds.push("tools");
    if (isRecord(caps.resources)) kinds.push("resources", "templates");
    if (isRecord(caps.prompts)) kinds.push("prompts");
    // A restarted server may list other things than the run before it: read every list again.
    for (const kind of kinds) await this.#catalog.sync(kind, this.#list);
  }

  readonly #list = (method: string, cursor: string | undefined): Promise<Record<string, unknown>> => {
    const connection = this.#connection!;
    return connection.request(method, cursor ? { cursor } : {});
  };

  async #call(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const token = `hubmcp-${this.#nextToken++}`;
    const params: Params = { name, arguments: args, _meta: { progressToken: token, ...traceFields(ctx.trace) } };
    let sent: { id: RequestId; connection: StdioConnection } | null = null;
    const onAbort = (): void => {
      if (sent) sent.connection.notify("notifications/cancelled", { requestId: sent.id, reason: "cancelled by the client" });
    };
    this.#calls.set(token, ctx);
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const answer = this.supervisor.request("tools/call", params, { trace: ctx.trace, onId: (id, connection) => void (sent = { id, connection }) });
      // A cancelled call ends now; the child's late answer finds nobody waiting.
      // (The dispatcher drops the answer of a cancelled call: this one only ends the handler quietly.)
      const cancelled = new Promise<unknown>((done) => ctx.signal.addEventListener("abort", () => done(CANCELLED), { once: true }));
      return await Promise.race([answer, cancelled]);
    } finally {
      this.#calls.delete(token);
      ctx.signal.removeEventListener("abort", onAbort);
    }
  }

  async #read(uri: string): Promise<string | Uint8Array> {
    const result = await this.supervisor.request("resources/read", { uri });
    const first = Array.isArray(result.contents) ? result.contents.find(isRecord) : undefined;
    if (first && typeof first.blob === "string") return Buffer.from(first.blob, "base64");
    return first && typeof first.text === "string" ? first.text : "";
  }

  async #complete(ref: Record<string, unknown>, name: string, value: string, others: Record<string, string>): Promise<readonly string[]> {
    const result = await this.supervisor.request("completion/complete", { ref, argument: { name, value }, context: { arguments: others } });
    const values = isRecord(result.completion) && Array.isArray(result.completion.values) ? result.completion.values : [];
    return values.filter((v): v is string => typeof v === "string");
  }

  /** The context of the latest running call: the one a stdio server's question or log most likely belongs to. */
  #latest(): ToolContext | undefined {
    let last: ToolContext | undefined;
    for (const ctx of this.#calls.values()) last = ctx;
    return last;
  }

  #fromChild(message: Record<string, unknown>, connection: StdioConnection): void {
    const method = String(message.method);
    const params = isRecord(message.params) ? message.params : {};
    if (message.id !== undefined) {
      void this.#answer(message.id as RequestId, method, params, connection);
      return;
    }
    if (method === "notifications/progress") {
      const ctx = this.#calls.get(String(params.progressToken));
      if (ctx && typeof params.progress === "number") {
        ctx.reportProgress(
          params.progress,
          typeof params.total === "number" ? params.total : undefined,
          typeof params.message === "string" ? params.message : undefined,
        );
      }
    } else if (method === "notifications/message") {
      const level = (LEVELS.has(String(params.level)) ? params.level : "info") as LogLevel;
      const logger = typeof params.logger === "string" ? params.logger : undefined;
      const ctx = this.#latest();
      if (ctx) ctx.log(level, params.data, logger);
    } else if (method === "notifications/cancelled") {
      if (typeof params.requestId === "string" || typeof params.requestId === "number") this.#dropped.add(params.requestId);
    } else if (method === "notifications/resources/updated") {
      if (typeof params.uri === "string") this.server?.notifyResourceUpdated(params.uri);
    } else if (LIST_NOTIFICATIONS[method]) {
      for (const kind of LIST_NOTIFICATIONS[method]) {
        this.#catalog?.sync(kind, this.#list).catch(() => this.#log(`stdio server: its ${kind} list could not be read again`));
      }
    }
  }

  /** A request from the child, answered through the latest running call's context. */
  async #answer(id: RequestId, method: string, params: Params, connection: StdioConnection): Promise<void> {
    let outcome: { result: unknown } | { error: { code: number; message: string } };
    try {
      outcome = { result: await this.#ask(method, params) };
    } catch (err) {
      const code = err instanceof JsonRpcError ? err.code : ErrorCode.InternalError;
      outcome = { error: { code, message: err instanceof Error ? err.message : "The request failed" } };
    }
    if (this.#dropped.delete(id)) return;
    connection.answer(id, outcome);
  }

  async #ask(method: string, params: Params): Promise<unknown> {
    if (method === "ping") return {};
    const known = method === "elicitation/create" || method === "sampling/createMessage" || method === "roots/list";
    if (!known) throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method.slice(0, 128)}`);
    const ctx = this.#latest();
    if (!ctx) throw new JsonRpcError(ErrorCode.InvalidRequest, `${method} is only relayed while a tool call runs`);
    if (method === "roots/list") return { roots: await ctx.listRoots() };
    if (method === "sampling/createMessage") return ctx.sample(params as unknown as SamplingRequest);
    if (params.mode === "url")
      return ctx.elicitUrl(String(params.message), String(params.url), typeof params.elicitationId === "string" ? { elicitationId: params.elicitationId } : {});
    return ctx.elicit(String(params.message), isRecord(params.requestedSchema) ? params.requestedSchema : { type: "object" });
  }
}
