// The server state the protocol methods read: what is registered and the limits. McpServer
// owns it; methods receive it through their Call, so this layer never imports a transport.
import type { RegisteredPrompt } from "../registry/prompts.ts";
import type { RegisteredResource } from "../registry/resources.ts";
import type { RegisteredTemplate } from "../registry/resource-templates.ts";
import type { RegisteredTool } from "../registry/tools.ts";
import type { RegisteredSkill } from "../registry/skills.ts";
import type { Icon } from "../registry/common.ts";
import type { ClientRequests } from "./client-requests.ts";
import type { ResourceSubscriptions } from "./subscriptions.ts";
import type { Logger } from "../util/logger.ts";
import { EXTENSION } from "./extension-ids.ts";
import type { ServerDescription } from "./stateless/results.ts";

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
  /** Skills (SEP-2640) by the URI of their SKILL.md; their files are in `resources` too. */
  readonly skills?: Map<string, RegisteredSkill>;
  /** Most entries one page of a list method holds. */
  readonly pageSize: number;
  /** Most messages one JSON-RPC batch may hold. */
  readonly maxBatchSize: number;
  /** Server-to-client requests waiting for the client's answer. */
  readonly clientRequests: ClientRequests;
  readonly subscriptions: ResourceSubscriptions;
  readonly logger: Logger;
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
  if (hasUiApp(core)) out[EXTENSION.ui] = { mimeTypes: ["text/html;profile=mcp-app"] };
  if (hasAsyncTool(core)) out[EXTENSION.tasks] = {};
  // No `directoryRead`: resources/directory/read is not implemented.
  if (core.skills?.size) out[EXTENSION.skills] = {};
  return out;
}

/** Server `tasks` capability (MCP 2025-11-25 tasks, "Server Capabilities"), with at least one async tool. */
export function tasksCapability(core: ServerCore): Record<string, unknown> | undefined {
  return hasAsyncTool(core) ? { list: {}, cancel: {}, requests: { tools: { call: {} } } } : undefined;
}

/** What the server offers, from what is registered: `server/discover` and `initialize` both build on it. */
export function describeServer(core: ServerCore): ServerDescription {
  const hasResources = core.resources.size > 0 || core.templates.size > 0;
  const tasks = tasksCapability(core);
  return {
    serverInfo: core.info,
    instructions: core.instructions,
    hasTools: core.tools.size > 0,
    hasPrompts: core.prompts.size > 0,
    hasResources,
    hasCompletions: core.prompts.size > 0 || core.templates.size > 0,
    listChanged: true,
    resourceSubscribe: hasResources,
    logging: true,
    extensions: extensions(core) as Record<string, Record<string, unknown>>,
    ...(tasks ? { tasks } : {}),
  };
}
