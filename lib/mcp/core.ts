// The server state the protocol methods read. McpServer owns it; methods receive it, so
// the protocol layer never imports the HTTP layer or the public facade.
import type { RegisteredPrompt } from "../registry/prompts.ts";
import type { RegisteredResource } from "../registry/resources.ts";
import type { RegisteredTemplate } from "../registry/resource-templates.ts";
import type { RegisteredTool } from "../registry/tools.ts";
import type { AsyncStore } from "../async/store.ts";
import type { Icon } from "../registry/common.ts";
import type { Session } from "../session/session.ts";
import type { ClientRequests } from "./client-requests.ts";
import type { JsonRpcMessage, RequestId } from "./jsonrpc.ts";
import type { ResourceSubscriptions } from "./subscriptions.ts";

/** Where the library reports what it does; it never writes to the console itself. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface ServerCore {
  readonly info: ServerInfo;
  readonly instructions: string | undefined;
  readonly tools: Map<string, RegisteredTool>;
  readonly resources: Map<string, RegisteredResource>;
  readonly prompts: Map<string, RegisteredPrompt>;
  /** Resource templates by URI template. */
  readonly templates: Map<string, RegisteredTemplate>;
  /** Most entries one page of a list method holds. */
  readonly pageSize: number;
  /** Most messages one JSON-RPC batch may hold. */
  readonly maxBatchSize: number;
  /** Server-to-client requests waiting for the client's answer. */
  readonly clientRequests: ClientRequests;
  readonly subscriptions: ResourceSubscriptions;
  /** Background runs of async tools: jobs and tasks. */
  readonly runs: AsyncStore;
  readonly logger: Logger;
  /** The public server object, handed to tool contexts. */
  readonly facade: unknown;
  /** Path prefix the server is mounted under ("" when none); stripped from resource URIs. */
  pathPrefix: string;
}

/** What one JSON-RPC request is handled with. */
export interface CallScope {
  readonly core: ServerCore;
  readonly id: RequestId;
  readonly session: Session | null;
  /** Aborts when the transport loses the client and nothing else could take the result. */
  readonly signal: AbortSignal | undefined;
  /**
   * Sends a message related to this request (progress, logging, server requests). A
   * transport may return false when no stream took it, so server requests fail at once.
   */
  send(message: JsonRpcMessage): void;
  /** Ends this request's SSE connection but not the call (SSE polling); a no-op where unsupported. */
  closeStream?(): void;
}

export function hasUiApp(core: ServerCore): boolean {
  for (const r of core.resources.values()) if (r.uri.startsWith("ui://") && r.mimeType?.startsWith("text/html")) return true;
  return false;
}

export function hasAsyncTool(core: ServerCore): boolean {
  for (const t of core.tools.values()) if (t.kind === "async") return true;
  return false;
}

/** Extensions advertised in `initialize` and the discovery document. */
export function extensions(core: ServerCore): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (hasUiApp(core)) out["io.modelcontextprotocol/ui"] = { mimeTypes: ["text/html;profile=mcp-app"] };
  if (hasAsyncTool(core)) out["io.modelcontextprotocol/tasks"] = {};
  return out;
}

/** Server `tasks` capability (MCP 2025-11-25 tasks, "Server Capabilities"), with at least one async tool. */
export function tasksCapability(core: ServerCore): Record<string, unknown> | undefined {
  return hasAsyncTool(core) ? { list: {}, cancel: {}, requests: { tools: { call: {} } } } : undefined;
}
