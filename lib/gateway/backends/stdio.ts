// `stdio`: a stdio MCP server run per person under start_mcp --stdio-server, started as an `app` is.
import { startServed } from "./app.ts";
import type { ToolBackend } from "./contract.ts";

export const stdio: ToolBackend<"stdio"> = { kind: "stdio", start: startServed };
