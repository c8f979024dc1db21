// `GET /.well-known/mcp.json`: what the server offers and where, before any session.
import { extensions, type ServerCore } from "../mcp/core.ts";
import { STATELESS_VERSIONS } from "../mcp/stateless/envelope.ts";
import { DISCOVERY_VERSION, SUPPORTED_VERSIONS } from "../mcp/versions.ts";

export function discoveryDocument(core: ServerCore, base = ""): Record<string, unknown> {
  const p = base;
  return {
    mcpVersion: DISCOVERY_VERSION,
    // `mcpVersion` is fixed by the interface specification; this says what a client may negotiate.
    protocolVersions: [...SUPPORTED_VERSIONS, ...STATELESS_VERSIONS],
    serverInfo: { name: core.info.name, version: core.info.version },
    capabilities: { tools: {}, resources: {}, prompts: {}, logging: {}, extensions: extensions(core) },
    transports: [
      { type: "sse", endpoint: `${p}/sse` },
      { type: "streamable-http", endpoint: `${p}/mcp` },
    ],
  };
}
