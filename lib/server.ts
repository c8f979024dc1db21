// The public facade: register tools, resources and prompts; serve them over HTTP or
// answer JSON-RPC directly. The work happens in ./registry, ./mcp and ./http.
import { Dispatcher } from "./mcp/dispatcher.ts";
import { silentLogger, type Logger, type ServerCore, type ServerInfo } from "./mcp/core.ts";
import { ErrorCode, failure, type JsonRpcResponse } from "./mcp/jsonrpc.ts";
import type { Icon } from "./registry/common.ts";
import { definePrompt, type PromptHandler, type PromptOptions, type RegisteredPrompt } from "./registry/prompts.ts";
import { defineResource, type RegisteredResource, type ResourceHandler, type ResourceOptions } from "./registry/resources.ts";
import {
  defineResourceTemplate,
  isUriTemplate,
  type RegisteredTemplate,
  type ResourceTemplateHandler,
  type ResourceTemplateOptions,
} from "./registry/resource-templates.ts";
import { ClientRequests } from "./mcp/client-requests.ts";
import { ResourceSubscriptions } from "./mcp/subscriptions.ts";
import { defineTool, type AnyToolHandler, type RegisteredTool, type ToolKind, type ToolOptions } from "./registry/tools.ts";
import type { InferShape, Shape } from "./schema/index.ts";
import type { ToolContext } from "./mcp/context.ts";
import { JOB_RESULT_TOOL, jobResultTool } from "./async/job-tool.ts";
import { AsyncStore, type AsyncOptions } from "./async/store.ts";
import { taskMethods } from "./mcp/methods/tasks.ts";
import { HttpApp } from "./http/app.ts";
import { DEFAULT_MAX_BODY } from "./http/body.ts";
import { serve, type ListenOptions, type RunningServer } from "./http/listen.ts";
import { hostGuard } from "./http/host-guard.ts";
import { normalizePrefix } from "./http/request-url.ts";
import { SessionTable, type SessionStore, type SessionTableOptions } from "./session/session-table.ts";

export interface McpServerOptions {
  version?: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
  /** Sent to clients in `initialize`: how to use this server's tools. */
  instructions?: string;
  /** Where the library reports; silent by default. */
  logger?: Logger;
  sessions?: SessionTableOptions;
  /** Largest request body in bytes (413 beyond it); 16 MiB by default. */
  maxBodyBytes?: number;
  /** SSE keepalive comment interval; 15 s by default. */
  keepaliveMs?: number;
  /** Unread bytes a client's stream may hold before it is dropped; 4 MiB by default. */
  maxStreamBufferBytes?: number;
  /** Time allowed to receive request headers; 20 s by default. */
  headersTimeoutMs?: number;
  /** Time allowed to receive a whole request; 60 s by default. */
  requestTimeoutMs?: number;
  /** How long close() waits for running calls; 5 s by default. */
  closeTimeoutMs?: number;
  /** Entries per page of `tools/list`, `resources/list` and the other lists; 100 by default. */
  pageSize?: number;
  /** Most messages one JSON-RPC batch may hold (400 beyond it); 100 by default. */
  maxBatchSize?: number;
  /** Jobs and tasks of async tools: lifetime, caps, the REST wait. */
  async?: AsyncOptions;
  /** DNS-rebinding guard (see HostGuardOptions); `listen()` options override these. */
  allowedHosts?: string[];
  allowedOrigins?: string[];
  trustProxy?: boolean;
  /** Events each SSE stream keeps for Last-Event-ID replay; 100 by default. */
  replayEvents?: number;
  /** Reconnection delay announced in each stream's priming event; 1 s by default. */
  sseRetryMs?: number;
}

export interface HandleOptions {
  /** An existing session to run the message in. */
  sessionId?: string;
}

/** A tool handler: the arguments object (type it, or use `input`) and the context. Handlers with positional parameters are accepted too. */
export type ToolHandler = (args: never, ctx: ToolContext) => unknown;

export class McpServer {
  readonly name: string;
  readonly version: string;
  readonly #options: McpServerOptions;
  readonly #core: ServerCore;
  readonly #dispatcher: Dispatcher;
  #sessions: SessionTable | null = null;
  readonly #running = new Set<RunningServer>();
  #asyncEnabled = false;

  constructor(name: string, options: McpServerOptions = {}) {
    if (typeof name !== "string" || name.trim() === "") throw new TypeError("McpServer needs a name");
    this.name = name;
    this.version = options.version ?? "1.0.0";
    this.#options = options;
    const info: ServerInfo = { name, version: this.version };
    if (options.title) info.title = options.title;
    if (options.description) info.description = options.description;
    if (options.websiteUrl) info.websiteUrl = options.websiteUrl;
    if (options.icons) info.icons = options.icons;
    this.#core = {
      info,
      instructions: options.instructions,
      tools: new Map(),
      resources: new Map(),
      prompts: new Map(),
      templates: new Map(),
      pageSize: options.pageSize ?? 100,
      maxBatchSize: options.maxBatchSize ?? 100,
      clientRequests: new ClientRequests(),
      subscriptions: new ResourceSubscriptions(),
      runs: new AsyncStore(options.async, options.logger),
      logger: options.logger ?? silentLogger,
      facade: this,
      pathPrefix: "",
    };
    this.#dispatcher = new Dispatcher(this.#core);
    // start_mcp recognises a server by this brand, not instanceof: the app and the launcher
    // may load different copies of this module (source and dist).
    Object.defineProperty(this, Symbol.for("hubmcp.server"), { value: true });
  }

  /** Registers a tool whose arguments are built with `s`: the handler's argument is typed from `input`. */
  tool<S extends Shape>(handler: (args: InferShape<S>, ctx: ToolContext) => unknown, options: ToolOptions & { input: S }): this;
  /** Registers a tool. Its name defaults to the function's name, its description to its doc comment. */
  tool(handler: ToolHandler, options?: ToolOptions): this;
  tool(handler: AnyToolHandler, options?: ToolOptions): this;
  tool(handler: AnyToolHandler, options: ToolOptions = {}): this {
    return this.#addTool(handler, options, "sync");
  }

  /** Registers a long-running tool whose arguments are built with `s` (see `tool`). */
  asyncTool<S extends Shape>(handler: (args: InferShape<S>, ctx: ToolContext) => unknown, options: ToolOptions & { input: S }): this;
  /** Registers a long-running tool: calls return a job or task handle at once. */
  asyncTool(handler: ToolHandler, options?: ToolOptions): this;
  asyncTool(handler: AnyToolHandler, options?: ToolOptions): this;
  asyncTool(handler: AnyToolHandler, options: ToolOptions = {}): this {
    return this.#addTool(handler, options, "async");
  }

  /**
   * Registers a resource. A URI with `{name}` holes (`data://runs/{id}`) registers a
   * template: its handler receives the values, `({ id }) => ...`.
   */
  resource(uri: string, handler: ResourceHandler | ResourceTemplateHandler, options: ResourceTemplateOptions = {}): this {
    if (typeof uri === "string" && isUriTemplate(uri)) {
      const template: RegisteredTemplate = defineResourceTemplate(uri, handler as ResourceTemplateHandler, options);
      if (this.#core.templates.has(uri)) throw new TypeError(`Resource template ${uri} is already registered`);
      this.#core.templates.set(uri, template);
    } else {
      const resource: RegisteredResource = defineResource(uri, handler as ResourceHandler, options);
      if (this.#core.resources.has(resource.uri)) throw new TypeError(`Resource ${resource.uri} is already registered`);
      this.#core.resources.set(resource.uri, resource);
    }
    return this.#listChanged("resources");
  }

  prompt(handler: PromptHandler, options: PromptOptions = {}): this {
    const prompt: RegisteredPrompt = definePrompt(handler, options);
    if (this.#core.prompts.has(prompt.name)) throw new TypeError(`Prompt ${prompt.name} is already registered`);
    this.#core.prompts.set(prompt.name, prompt);
    return this.#listChanged("prompts");
  }

  /** Unregisters a tool; returns whether it existed. Connected clients are told the list changed. */
  removeTool(name: string): boolean {
    // Jobs outlive the tool that started them; their poller stays as long as the server.
    if (name === JOB_RESULT_TOOL && this.#asyncEnabled) throw new TypeError(`${JOB_RESULT_TOOL} is built in once async tools are used`);
    const removed = this.#core.tools.delete(name);
    if (removed) this.#listChanged("tools");
    return removed;
  }

  /** Unregisters a resource or resource template by its URI; returns whether it existed. */
  removeResource(uri: string): boolean {
    const removed = this.#core.resources.delete(uri) || this.#core.templates.delete(uri);
    if (removed) this.#listChanged("resources");
    return removed;
  }

  removePrompt(name: string): boolean {
    const removed = this.#core.prompts.delete(name);
    if (removed) this.#listChanged("prompts");
    return removed;
  }

  /** Sends `notifications/resources/updated` to every session subscribed to `uri`. */
  notifyResourceUpdated(uri: string): void {
    if (!this.#sessions) return;
    const message = { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } } as const;
    for (const session of this.#sessions.values()) if (this.#core.subscriptions.has(session, uri)) session.send(message);
  }

  /** Tells connected sessions a list changed; before any session exists nobody needs telling. */
  #listChanged(list: "tools" | "resources" | "prompts"): this {
    if (this.#sessions) {
      const message = { jsonrpc: "2.0", method: `notifications/${list}/list_changed` } as const;
      for (const session of this.#sessions.values()) session.send(message);
    }
    return this;
  }

  #addTool(handler: AnyToolHandler, options: ToolOptions, kind: ToolKind): this {
    const tool: RegisteredTool = defineTool(handler, options, kind);
    if (this.#core.tools.has(tool.name)) throw new TypeError(`Tool ${tool.name} is already registered`);
    const firstAsync = kind === "async" && !this.#asyncEnabled;
    if (firstAsync && (tool.name === JOB_RESULT_TOOL || this.#core.tools.has(JOB_RESULT_TOOL))) {
      throw new TypeError(`Tool name ${JOB_RESULT_TOOL} is reserved for polling async tools`);
    }
    this.#core.tools.set(tool.name, tool);
    if (firstAsync) {
      // The first async tool brings job polling and the tasks/* methods (interface spec).
      this.#asyncEnabled = true;
      this.#core.tools.set(JOB_RESULT_TOOL, jobResultTool(this.#core.runs));
      this.#dispatcher.addMethods(taskMethods);
    }
    return this.#listChanged("tools");
  }

  get sessions(): SessionStore {
    return (this.#sessions ??= new SessionTable(this.#options.sessions));
  }

  /** Serves over HTTP. Resolves once the socket listens. */
  async listen(options: ListenOptions = {}): Promise<RunningServer> {
    const prefix = normalizePrefix(options.pathPrefix);
    if (this.#running.size > 0 && prefix !== this.#core.pathPrefix) {
      throw new Error("This server already listens under another path prefix");
    }
    this.#core.pathPrefix = prefix;
    const o = this.#options;
    const host = options.host ?? "127.0.0.1";
    const app = new HttpApp(this.#core, this.#dispatcher, this.sessions, {
      maxBodyBytes: o.maxBodyBytes ?? DEFAULT_MAX_BODY,
      keepaliveMs: o.keepaliveMs ?? 15_000,
      maxStreamBufferBytes: o.maxStreamBufferBytes ?? 4 * 1024 * 1024,
      guard: hostGuard(host, {
        allowedHosts: options.allowedHosts ?? o.allowedHosts,
        allowedOrigins: options.allowedOrigins ?? o.allowedOrigins,
        trustProxy: options.trustProxy ?? o.trustProxy,
      }),
      replay: { maxEvents: o.replayEvents ?? 100, retryMs: o.sseRetryMs ?? 1000 },
    });
    const running = await serve(
      app,
      host,
      options.port ?? 0,
      {
        headersTimeoutMs: o.headersTimeoutMs ?? 20_000,
        requestTimeoutMs: o.requestTimeoutMs ?? 60_000,
        keepAliveTimeoutMs: 5_000,
        closeTimeoutMs: o.closeTimeoutMs ?? 5_000,
      },
      () => {
        this.#running.delete(running);
        if (this.#running.size === 0) {
          this.#sessions?.close();
          this.#sessions = null;
          this.#core.runs.close();
        }
      },
    );
    this.#running.add(running);
    return running;
  }

  /** The JSON-RPC core without HTTP: one message or a batch in, the answer out (null for none). */
  async handle(message: unknown, options: HandleOptions = {}): Promise<JsonRpcResponse | JsonRpcResponse[] | null> {
    let session = null;
    if (options.sessionId !== undefined) {
      session = this.sessions.get(options.sessionId) ?? null;
      if (!session) return failure(null, { code: ErrorCode.SessionNotFound, message: "Session not found" });
    }
    const outcome = await this.#dispatcher.handleBody(message, { session, send: (m) => session?.send(m) });
    if (outcome.kind === "accepted") return null;
    return outcome.kind === "single" ? outcome.response : outcome.responses;
  }
}
