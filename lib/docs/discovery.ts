// `GET /.well-known/mcp.json`: what the server offers and where, before any session.
import { extensions, type ServerCore } from "../mcp/core.ts";
import { DISCOVERY_VERSION } from "../mcp/versions.ts";

export function discoveryDocument(core: ServerCore, base = ""): Record<string, unknown> {
  const p = base;
  return {
    mcpVersion: DISCOVERY_VERSION,
    serverInfo: { name: core.info.name, version: core.info.version },
    capabilities: { tools: {}, resources: {}, prompts: {}, logging: {}, extensions: extensions(core) },
    transports: [
      { type: "sse", endpoint: `${p}/sse` },
      { type: "streamable-http", endpoint: `${p}/mcp` },
    ],
  };
}
