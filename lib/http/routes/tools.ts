// `POST /tools/<name>`: a tool as a plain REST call, for clients that do not speak MCP.
// An async tool gets a bounded wait, then a job id to poll through `get_job_result`.
import type { IncomingMessage, ServerResponse } from "node:http";
import { mcpSpanAttributes } from "../../mcp/span.ts";
import { SpanKind } from "../../telemetry/span.ts";
import { processTracing } from "../../telemetry/tracer.ts";
import { parentFromHeaders } from "../../util/trace-context.ts";
import { executeTool } from "../../tasks/execute.ts";
import type { AsyncRun } from "../../tasks/run.ts";
import type { AsyncStore } from "../../tasks/store.ts";
import { isRecord } from "../../util/guards.ts";
import { describeErrors, runTool } from "../../mcp/run-tool.ts";
import { resultText, type CallToolResult } from "../../mcp/tool-result.ts";
import type { RegisteredTool } from "../../registry/tools.ts";
import type { Logger } from "../../util/logger.ts";
import type { RouteHandler } from "../types.ts";
import { readJsonBody } from "../body.ts";
import { statusOf } from "../status.ts";
import { sendError, sendJson, sendTooLarge } from "../respond.ts";

export const postTool: RouteHandler = async (app, req, res, url) => {
  let name: string;
  try {
    name = decodeURIComponent(url.path.slice("/tools/".length));
  } catch {
    name = "";
  }
  const tool = app.core.tools.get(name);
  if (!tool) {
    req.resume();
    return sendError(res, 404, /^[A-Za-z0-9_.-]{1,128}$/.test(name) ? `Unknown tool: ${name}` : "Unknown tool");
  }
  traceRestCall(req, res, name);
  if (tool.contextBearing && !tool.contextOptional) {
    req.resume();
    return sendError(
      res,
      409,
      `Tool ${name} uses the request context (logging, progress or elicitation); call it over MCP (tools/call on this server's MCP endpoint)`,
    );
  }
  const body = await readJsonBody(req, app.options.maxBodyBytes);
  if (!body.ok) {
    if (body.reason === "aborted") return;
    if (body.reason === "too-large") return sendTooLarge(res);
    return sendError(res, statusOf("HUBMCP_BODY_NOT_JSON"), "Body is not valid JSON");
  }
  const args = body.empty ? {} : body.value;
  if (!isRecord(args)) return sendError(res, 400, "Body must be a JSON object of the tool's arguments");
  // Tracked through the written answer, so close() waits for the call but not for the upload.
  return app.track(tool.kind === "async" ? runWithDeadline(app.runs, tool, args, res, app.core.logger) : runSync(tool, args, res, app.core.logger));
};

/** A REST call is a `tools/call` span too, continuing the W3C headers' trace, ended with the answer. */
function traceRestCall(req: IncomingMessage, res: ServerResponse, name: string): void {
  const tracer = processTracing();
  if (!tracer.active) return;
  const { name: spanName, attributes } = mcpSpanAttributes("tools/call", { name }, null);
  const span = tracer.start(spanName, SpanKind.server, tracer.context(parentFromHeaders(req.headers)), attributes);
  res.once("close", () => span.end(res.statusCode >= 400 ? String(res.statusCode) : undefined));
}

async function runSync(tool: RegisteredTool, args: Record<string, unknown>, res: ServerResponse, logger: Logger): Promise<void> {
  const outcome = await runTool(tool, args, undefined, logger);
  if (outcome.kind === "invalid-arguments") return sendError(res, 400, outcome.message);
  sendResult(res, outcome.result);
}

function sendResult(res: ServerResponse, result: CallToolResult): void {
  if (result.isError) return sendError(res, 500, resultText(result) || "Tool failed");
  const payload: Record<string, unknown> = { result: resultText(result) };
  if (result.structuredContent !== undefined) payload.structuredContent = result.structuredContent;
  sendJson(res, 200, payload);
}

/** Resolves true when the run ends within `ms`, false when the wait ran out. */
function settlesWithin(run: AsyncRun, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
  return Promise.race([run.whenTerminal().then(() => true), timeout]).finally(() => clearTimeout(timer));
}

/** Waits up to `restWaitMs` (under a proxy's ~30 s), then answers 202 with a job to poll. */
async function runWithDeadline(runs: AsyncStore, tool: RegisteredTool, args: Record<string, unknown>, res: ServerResponse, logger: Logger): Promise<void> {
  const check = tool.validateInput(args);
  if (!check.valid) return sendError(res, 400, describeErrors("Invalid arguments", check.errors));
  const started = runs.start({ how: { kind: "job" }, session: null, toolName: tool.name, execute: () => executeTool(tool, args, undefined, logger) });
  if (!started.ok) return sendError(res, 503, started.message, { "retry-after": "5" });
  const { run } = started;
  // A client gone before it got the job id can never collect the result: stop the work.
  res.once("close", () => {
    if (!res.writableFinished) runs.delete(run.id);
  });
  if (!(await settlesWithin(run, runs.options.restWaitMs))) return sendJson(res, 202, { status: "running", job_id: run.id });
  runs.delete(run.id);
  if (res.destroyed) return;
  if (run.status === "cancelled" || !run.settled) return sendError(res, 503, "The job was cancelled");
  sendResult(res, run.settled.result);
}
