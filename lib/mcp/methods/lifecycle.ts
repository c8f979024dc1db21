import { extensions, tasksCapability, type ServerCore } from "../core.ts";
import { invalidParams, JsonRpcError } from "../errors.ts";
import { isRecord } from "../../util/guards.ts";
import { ErrorCode } from "../../util/jsonrpc.ts";
import { negotiateVersion } from "../versions.ts";
import { LOG_LEVELS, type ClientInfo, type LogLevel } from "../../session/session.ts";
import type { MethodTable, Result } from "./types.ts";

export function serverCapabilities(core: ServerCore): Result {
  const caps: Result = { logging: {}, completions: {} };
  if (core.tools.size) caps.tools = { listChanged: true };
  if (core.resources.size || core.templates.size) caps.resources = { subscribe: true, listChanged: true };
  if (core.prompts.size) caps.prompts = { listChanged: true };
  const tasks = tasksCapability(core);
  if (tasks) caps.tasks = tasks;
  const ext = extensions(core);
  if (Object.keys(ext).length) caps.extensions = ext;
  return caps;
}

export const lifecycleMethods = {
  initialize(params, { core, session }) {
    const protocolVersion = negotiateVersion(params.protocolVersion);
    if (session) {
      session.protocolVersion = protocolVersion;
      session.clientCapabilities = isRecord(params.capabilities) ? params.capabilities : {};
      session.clientInfo = isRecord(params.clientInfo) ? (params.clientInfo as ClientInfo) : null;
    }
    const result: Result = { protocolVersion, capabilities: serverCapabilities(core), serverInfo: core.info };
    if (core.instructions) result.instructions = core.instructions;
    return result;
  },

  ping: () => ({}),

  "logging/setLevel"(params, { session }) {
    if (!LOG_LEVELS.includes(params.level as LogLevel)) {
      throw invalidParams(`Invalid params: level must be one of ${LOG_LEVELS.join(", ")}`);
    }
    if (!session) throw new JsonRpcError(ErrorCode.InvalidRequest, "logging/setLevel needs an MCP session");
    session.logLevel = params.level as LogLevel;
    return {};
  },
} satisfies MethodTable;
