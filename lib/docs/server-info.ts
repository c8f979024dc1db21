// `GET /`: what a person or a probe sees first.
import type { ServerCore } from "../mcp/core.ts";

export function serverInfoDocument(core: ServerCore, base = ""): Record<string, unknown> {
  const p = base;
  const doc: Record<string, unknown> = {
    name: core.info.name,
    version: core.info.version,
    status: "running",
    tools: core.tools.size,
    resources: core.resources.size,
    prompts: core.prompts.size,
    endpoints: { sse: `${p}/sse`, mcp: `${p}/mcp`, openapi: `${p}/openapi.json` },
  };
  if (core.info.title) doc.title = core.info.title;
  return doc;
}
