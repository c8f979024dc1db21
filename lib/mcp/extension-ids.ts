// The names MCP gives its extensions and its `_meta` keys (reverse-DNS, under
// `io.modelcontextprotocol/`), spelled once: the tool server, the tasks layer and the gateway
// read and write them through these constants.

/** Extension ids, as keys of `capabilities.extensions`. */
export const EXTENSION = {
  tasks: "io.modelcontextprotocol/tasks",
  ui: "io.modelcontextprotocol/ui",
  skills: "io.modelcontextprotocol/skills",
} as const;

/** `_meta` keys: the 2026-07-28 request envelope, and the task a message belongs to. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  relatedTask: "io.modelcontextprotocol/related-task",
} as const;
