import type { McpServer, ToolOptions } from "../../lib/index.ts";

export function jsTool(server: McpServer, handler: (...args: never[]) => unknown, options?: ToolOptions): McpServer;
export function jsAsyncTool(server: McpServer, handler: (...args: never[]) => unknown, options?: ToolOptions): McpServer;
