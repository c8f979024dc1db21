import { describeServer, type ServerCore } from "../core.ts";
import { sessionCapabilities } from "../stateless/results.ts";
import { invalidParams, JsonRpcError } from "../errors.ts";
import { isRecord } from "../../util/guards.ts";
import { ErrorCode } from "../../util/jsonrpc.ts";
import { negotiateVersion } from "../versions.ts";
import { LOG_LEVELS, type ClientInfo, type LogLevel } from "../../session/session.ts";
import type { MethodTable, Result } from "./types.ts";

/** A session's capabilities: from the description discovery answers from, with completions always offered, as initialize always has. */
export function serverCapabilities(core: ServerCore): Result {
  return sessionCapabilities({ ...describeServer(core), hasCompletions: true });
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
