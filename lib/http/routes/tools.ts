// `POST /tools/<name>`: a tool as a plain REST call (DECISIONS "POST /tools/<name>").
import { isRecord } from "../../mcp/jsonrpc.ts";
import { runTool } from "../../mcp/run-tool.ts";
import { resultText } from "../../mcp/tool-result.ts";
import type { RouteHandler } from "../app.ts";
import { readJsonBody } from "../body.ts";
import { sendError, sendJson } from "../respond.ts";

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
  if (tool.contextBearing) {
    req.resume();
    return sendError(res, 409, `Tool ${name} uses the request context (logging, progress or elicitation); call it over MCP at /mcp`);
  }
  const body = await readJsonBody(req, app.options.maxBodyBytes);
  if (!body.ok) {
    if (body.reason === "aborted") return;
    if (body.reason === "too-large") return sendError(res, 413, "Request body too large", { connection: "close" });
    return sendError(res, 400, "Body is not valid JSON");
  }
  const args = body.empty ? {} : body.value;
  if (!isRecord(args)) return sendError(res, 400, "Body must be a JSON object of the tool's arguments");
  const outcome = await runTool(tool, args, undefined);
  if (outcome.kind === "invalid-arguments") return sendError(res, 400, outcome.message);
  const { result } = outcome;
  if (result.isError) return sendError(res, 500, resultText(result) || "Tool failed");
  const payload: Record<string, unknown> = { result: resultText(result) };
  if (result.structuredContent !== undefined) payload.structuredContent = result.structuredContent;
  sendJson(res, 200, payload);
};
