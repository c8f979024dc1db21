// The public facade: register tools, resources and prompts; serve them over HTTP (listen,
// or handler() inside another server), over stdio, or answer JSON-RPC directly (handle).
// The work happens in ./registry, ./mcp, ./async, ./http and ./stdio.
import { createProtocol, serveMessage, type Protocol } from "./mcp/protocol.ts";
import { sharedMethods } from "./mcp/dispatcher.ts";
import { whenInUse } from "./mcp/methods/gate.ts";
import type { MethodTable } from "./mcp/methods/types.ts";
import { replyOf } from "./mcp/outcome.ts";
import { statelessTaskMethods } from "./tasks/stateless.ts";
import type { ServerCore } from "./mcp/core.ts";
import { resolveServerOptions, type McpServerOptions, type ResolvedServerOptions } from "./server-options.ts";
import { DEFAULT_LOGGER, forwardingLogger, silentLogger, type Logger } from "./util/logger.ts";
import { ErrorCode, failure, type JsonRpcResponse } from "./util/jsonrpc.ts";
import { RegistrationError } from "./util/errors.ts";
import { definePrompt, type PromptHandler, type PromptOptions, type RegisteredPrompt } from "./registry/prompts.ts";
import { defineResource, type RegisteredResource, type ResourceHandler } from "./registry/resources.ts";
import {
  defineResourceTemplate,
  isUriTemplate,
  type RegisteredTemplate,
  type ResourceTemplateHandler,
  type ResourceTemplateOptions,
} from "./registry/resource-templates.ts";
import { ClientRequests } from "./mcp/client-requests.ts";
import { type RapptureOptions, rapptureTool } from "./rappture/publish.ts";
import { defineSkill, removeSkillHolding, type RegisteredSkill, type SkillOptions } from "./registry/skills.ts";
import { skillMethods } from "./mcp/methods/skills.ts";
import { ResourceSubscriptions } from "./mcp/subscriptions.ts";
import { registeredFromTypeScript } from "./registry/origin.ts";
import { defineTool, type AnyToolHandler, type RegisteredTool, type ToolKind, type ToolOptions } from "./registry/tools.ts";
import type { InferShape, Shape } from "./schema/index.ts";
import type { ToolContext as CoreToolContext } from "./mcp/context.ts";
import { JOB_RESULT_TOOL, jobResultTool } from "./tasks/job-tool.ts";
import { asyncMethods } from "./tasks/plugin.ts";
import { AsyncStore } from "./tasks/store.ts";
import { runPersistence } from "./tasks/state-dir.ts";
import { toolMethods } from "./mcp/methods/tools.ts";
import { HttpApp } from "./http/app.ts";
import type { RequestHandler } from "./http/types.ts";
import { serve, type HandlerOptions, type ListenOptions, type RunningServer } from "./http/listen.ts";
import { hostGuard } from "./http/host-guard.ts";
import { normalizePrefix } from "./http/request-url.ts";
import { serveStdio, type StdioOptions, type StdioServer } from "./stdio/serve.ts";
import { SessionTable, type SessionStore } from "./session/session-table.ts";

export type { McpServerOptions } from "./server-options.ts";

export interface HandleOptions {
  /** An existing session to run the message in. */
  sessionId?: string;
}

/** What a tool handler receives besides its arguments; `server` is the McpServer running it. */
export type ToolContext = CoreToolContext<McpServer>;

/** A tool handler: the arguments object (type it, or use `input`) and the context. Handlers with positional parameters are accepted too. */
export type ToolHandler = (args: never, ctx: ToolContext) => unknown;

export class McpServer {
  readonly name: string;
  readonly version: string;
  readonly #options: ResolvedServerOptions;
  readonly #core: ServerCore;
  readonly #protocol: Protocol;
  #sessions: SessionStore | null = null;
  readonly #runs: AsyncStore;
  /** Open HTTP listeners and stdio connections; the last one to close ends the sessions. */
  readonly #open = new Set<{ close(): Promise<void> }>();
  #asyncEnabled = false;
  /** Once a skill was registered, skills/* answer (an empty list after the last one is removed). */
  #skillsUsed = false;

  constructor(name: string, options: McpServerOptions = {}) {
    if (typeof name !== "string" || name.trim() === "") throw new RegistrationError("HUBMCP_INVALID_NAME", "McpServer needs a name");
    this.name = name;
    const resolved = (this.#options = resolveServerOptions(name, options));
    this.version = resolved.info.version;
    let logger = resolved.logger ?? silentLogger;
    const forwarding = forwardingLogger(() => logger);
    this.#core = {
      info: resolved.info,
      instructions: resolved.instructions,
      tools: new Map(),
      resources: new Map(),
      prompts: new Map(),
      templates: new Map(),
      skills: new Map(),
      pageSize: resolved.pageSize,
      maxBatchSize: resolved.maxBatchSize,
      clientRequests: new ClientRequests(),
      subscriptions: new ResourceSubscriptions(),
      logger: forwarding,
    };
    this.#runs = new AsyncStore(resolved.async, forwarding, runPersistence(options.stateDir, forwarding));
    // The method table, built once: skills and async tools answer from their first registration.
    const shared = sharedMethods();
    const methods: MethodTable = {
      ...shared,
      ...whenInUse(skillMethods(), () => this.#skillsUsed),
      ...whenInUse(asyncMethods(this.#runs, toolMethods), () => this.#asyncEnabled, shared),
    };
    // The 2026 tasks extension's methods are that revision's alone (its tasks/* differ from 2025's).
    const statelessOnly = whenInUse(statelessTaskMethods(this.#runs), () => this.#asyncEnabled);
    this.#protocol = createProtocol(this.#core, resolved.stateless, methods, statelessOnly, this);
    // start_mcp recognises a server by this brand, not instanceof: the app and the launcher
    // may load different copies of this module (source and dist).
    Object.defineProperty(this, Symbol.for("hubmcp.server"), { value: true });
    Object.defineProperty(this, DEFAULT_LOGGER, {
      value: (given: Logger) => {
        if (resolved.logger === undefined) logger = given;
      },
    });
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
      const template: RegisteredTemplate = defining(() => defineResourceTemplate(uri, handler as ResourceTemplateHandler, options));
      if (this.#core.templates.has(uri)) throw duplicate(`Resource template ${uri}`);
      this.#core.templates.set(uri, template);
    } else {
      const resource: RegisteredResource = defining(() => defineResource(uri, handler as ResourceHandler, options));
      if (this.#core.resources.has(resource.uri)) throw duplicate(`Resource ${resource.uri}`);
      this.#core.resources.set(resource.uri, resource);
    }
    return this.#listChanged("resources");
  }

  prompt(handler: PromptHandler, options: PromptOptions = {}): this {
    const prompt: RegisteredPrompt = defining(() => definePrompt(handler, options));
    if (this.#core.prompts.has(prompt.name)) throw duplicate(`Prompt ${prompt.name}`);
    this.#core.prompts.set(prompt.name, prompt);
    return this.#listChanged("prompts");
  }

  /**
   * Serves an Agent Skill (SEP-2640): the directory's SKILL.md and other files as
   * `skill://<name>/…` resources, listed with their digests by skills/list and skills/get.
   * The files are read once, now; dotfiles are skipped, a symlink out of the directory refused.
   */
  skill(dir: string, options: SkillOptions = {}): this {
    const skill: RegisteredSkill = defining(() => defineSkill(dir, options));
    const skills = this.#core.skills!;
    if (skills.has(skill.uri)) throw duplicate(`Skill ${skill.uri}`);
    for (const file of skill.files) if (this.#core.resources.has(file.uri)) throw duplicate(`Resource ${file.uri}`);
    this.#skillsUsed = true;
    skills.set(skill.uri, skill);
    for (const file of skill.files) this.#core.resources.set(file.uri, file);
    return this.#listChanged("resources");
  }

  /**
   * Publishes a Rappture tool from its tool.xml: the inputs become the tool's schema, each call
   * runs the program in a private folder with a driver file, and the run file's outputs come
   * back as structured data (an async tool: long runs become jobs or tasks).
   */
  rappture(toolXml: string, options: RapptureOptions = {}): this {
    // A run's file is kept for its session until that session ends.
    const watch = (id: string, ended: () => void): boolean => {
      const session = this.sessions.get(id);
      session?.onEnd(ended);
      return session !== undefined;
    };
    const published = defining(() => rapptureTool(toolXml, options, watch));
    this.asyncTool(published.handler as AnyToolHandler, published.options);
    this.resource(published.runFiles.template, published.runFiles.read, published.runFiles.options);
    return this.resource(published.app.uri, () => published.app.page, published.app.options);
  }

  /** Unregisters a tool; returns whether it existed. Connected clients are told the list changed. */
  removeTool(name: string): boolean {
    // Jobs outlive the tool that started them; their poller stays as long as the server.
    if (name === JOB_RESULT_TOOL && this.#asyncEnabled) {
      throw new RegistrationError("HUBMCP_RESERVED_NAME", `${JOB_RESULT_TOOL} is built in once async tools are used`);
    }
    const removed = this.#core.tools.delete(name);
    if (removed) this.#listChanged("tools");
    return removed;
  }

  /** Unregisters a resource (or, given its URI template, a template; given a skill's file, the skill); returns whether it existed. */
  removeResource(uri: string): boolean {
    const core = this.#core;
    const removed = removeSkillHolding(core.skills!, core.resources, uri) || core.resources.delete(uri) || core.templates.delete(uri);
    if (removed) this.#listChanged("resources");
    return removed;
  }

  /** Unregisters a resource template by its URI template only; returns whether it existed. */
  removeResourceTemplate(uriTemplate: string): boolean {
    const removed = this.#core.templates.delete(uriTemplate);
    if (removed) this.#listChanged("resources");
    return removed;
  }

  /** Unregisters a prompt; returns whether it existed. Connected clients are told the list changed. */
  removePrompt(name: string): boolean {
    const removed = this.#core.prompts.delete(name);
    if (removed) this.#listChanged("prompts");
    return removed;
  }

  /** Sends `notifications/resources/updated` to every session subscribed to `uri`. */
  notifyResourceUpdated(uri: string): void {
    this.#protocol.stateless.listeners.notify("notifications/resources/updated", { uri });
    if (!this.#sessions) return;
    const message = { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } } as const;
    for (const session of this.#sessions.values()) if (this.#core.subscriptions.has(session, uri)) session.send(message);
  }

  /** Tells connected sessions a list changed; before any session exists nobody needs telling. */
  #listChanged(list: "tools" | "resources" | "prompts"): this {
    this.#protocol.stateless.listeners.notify(`notifications/${list}/list_changed`);
    if (this.#sessions) {
      const message = { jsonrpc: "2.0", method: `notifications/${list}/list_changed` } as const;
      for (const session of this.#sessions.values()) session.send(message);
    }
    return this;
  }

  #addTool(handler: AnyToolHandler, options: ToolOptions, kind: ToolKind): this {
    const tool: RegisteredTool = defining(() => defineTool(handler, options, kind, registeredFromTypeScript()));
    if (this.#core.tools.has(tool.name)) throw duplicate(`Tool ${tool.name}`);
    const firstAsync = kind === "async" && !this.#asyncEnabled;
    if (firstAsync && (tool.name === JOB_RESULT_TOOL || this.#core.tools.has(JOB_RESULT_TOOL))) {
      throw new RegistrationError("HUBMCP_RESERVED_NAME", `Tool name ${JOB_RESULT_TOOL} is reserved for polling async tools`);
    }
    this.#core.tools.set(tool.name, tool);
    if (firstAsync) {
      // The first async tool turns on job polling, the tasks/* methods of both revisions and its tools/call branch.
      this.#asyncEnabled = true;
      this.#core.tools.set(JOB_RESULT_TOOL, jobResultTool(this.#runs));
    }
    return this.#listChanged("tools");
  }

  get sessions(): SessionStore {
    return (this.#sessions ??= this.#options.sessionStore ?? new SessionTable(this.#options.sessions));
  }

  /**
   * The HTTP routes as one request handler: a node:http listener and an Express/Connect
   * middleware. Mounted under a path (`app.use("/tools", server.handler())`) it serves
   * below it and names it in what it advertises; paths it does not serve go to `next`.
   */
  handler(options: HandlerOptions = {}): RequestHandler {
    return this.#httpApp(null, options).handle;
  }

  /** Serves over HTTP on its own socket, through handler(). Resolves once the socket listens. */
  async listen(options: ListenOptions = {}): Promise<RunningServer> {
    const host = options.host ?? "127.0.0.1";
    const app = this.#httpApp(host, options);
    const running = await serve(app, host, options.port ?? 0, normalizePrefix(options.pathPrefix), this.#options.limits, () => this.#closed(running));
    this.#open.add(running);
    return running;
  }

  /**
   * Speaks MCP's stdio transport on this process's stdin and stdout (or the streams given):
   * one JSON-RPC message per line, nothing else on stdout. This is how desktop assistants
   * launch local servers. Resolves once serving; `closed` settles when stdin ends.
   */
  serveStdio(options: StdioOptions = {}): StdioServer {
    const served = serveStdio(this.#protocol, this.sessions, this.#core.logger, options, () => this.#closed(served));
    this.#open.add(served);
    return served;
  }

  #httpApp(host: string | null, options: HandlerOptions): HttpApp {
    const { http, guard } = this.#options;
    return new HttpApp(this.#core, this.#protocol, this.sessions, this.#runs, {
      ...http,
      guard: hostGuard(host, {
        allowedHosts: options.allowedHosts ?? guard.allowedHosts,
        allowedOrigins: options.allowedOrigins ?? guard.allowedOrigins,
        trustProxy: options.trustProxy ?? guard.trustProxy,
      }),
    });
  }

  /** A listener or stdio connection ended; after the last one, sessions and runs end too. */
  #closed(which: { close(): Promise<void> }): void {
    this.#open.delete(which);
    if (this.#open.size > 0) return;
    // Runs first: with a state directory they are kept as cut off, not dropped with their sessions.
    this.#runs.close();
    if (this.#sessions && this.#sessions !== this.#options.sessionStore) this.#sessions.close();
    this.#sessions = null;
  }

  /** The JSON-RPC core without HTTP: one message or a batch in, the answer out (null for none). */
  async handle(message: unknown, options: HandleOptions = {}): Promise<JsonRpcResponse | JsonRpcResponse[] | null> {
    let session = null;
    if (options.sessionId !== undefined) {
      session = this.sessions.get(options.sessionId) ?? null;
      if (!session) return failure(null, { code: ErrorCode.SessionNotFound, message: "Session not found" });
    }
    // Classified like every transport's message: a 2026-07-28 request is served statelessly.
    return replyOf(await serveMessage(this.#protocol, message, { session, send: (m) => session?.send(m) ?? false }));
  }
}

/** Runs a registry definition; its TypeError becomes a coded RegistrationError with the same message. */
function defining<T>(define: () => T): T {
  try {
    return define();
  } catch (err) {
    if (err instanceof TypeError && !(err instanceof RegistrationError)) {
      throw new RegistrationError("HUBMCP_INVALID_DEFINITION", err.message, { cause: err });
    }
    throw err;
  }
}

const duplicate = (what: string): RegistrationError => new RegistrationError("HUBMCP_DUPLICATE", `${what} is already registered`);
