// Runs a tool in the background through runTool (so validation, defaults, shaping and the
// output check match a synchronous call) and keeps what the handler returned for job polls.
import type { RegisteredTool } from "../registry/tools.ts";
import { runTool } from "../mcp/run-tool.ts";
import { errorResult, resultText, type CallToolResult } from "../mcp/tool-result.ts";
import type { Logger } from "../util/logger.ts";
import type { ProtocolError, Settled } from "./run.ts";

/** The job's `result`: what the tool returned when that is plain data, else its structured or text result. */
function jobValue(raw: unknown, result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (raw === undefined || raw === null) return null;
  if (typeof raw === "string" || typeof raw === "boolean" || (typeof raw === "number" && Number.isFinite(raw))) return raw;
  if (Array.isArray(raw)) {
    try {
      return JSON.parse(JSON.stringify(raw)) as unknown;
    } catch {
      // Not plain data (a cycle, a bigint): fall through to the text.
    }
  }
  return resultText(result);
}

/** A handler failure that carries a numeric JSON-RPC code is the server's failure, not the tool's. */
export function protocolErrorOf(err: unknown): ProtocolError | undefined {
  if (!(err instanceof Error)) return undefined;
  const code: unknown = (err as { code?: unknown }).code;
  return typeof code === "number" && Number.isSafeInteger(code) ? { code, message: err.message || "Task failed" } : undefined;
}

export async function executeTool(tool: RegisteredTool, args: Record<string, unknown>, ctx: unknown, logger: Logger): Promise<Settled> {
  const outcome = await runTool(tool, args, ctx, logger);
  if (outcome.kind === "invalid-arguments") return { result: errorResult(outcome.message), value: null };
  const protocolError = protocolErrorOf(outcome.thrown);
  const value = outcome.result.isError ? null : jobValue(outcome.value, outcome.result);
  return protocolError ? { result: outcome.result, value, protocolError } : { result: outcome.result, value };
}
