// `--stdio-server -- CMD ARGS…`: the stdio MCP server started and its catalogue read before
// anything listens, so the first listing is complete. A server that cannot start is one line
// (how it failed, never its command line or output: those are in the log lines above it).
import { relayStdioServer } from "../stdio-server/relay.ts";
import type { McpServer } from "../server.ts";

export async function startStdioServer(
  command: readonly string[],
  env: NodeJS.ProcessEnv,
  err: (line: string) => void,
): Promise<{ server: McpServer; close(): Promise<void> } | string> {
  const [program, ...args] = command;
  try {
    return await relayStdioServer({ command: program!, args, env, log: (line) => err(`start_mcp: ${line}`) });
  } catch (failure) {
    const code = (failure as { code?: unknown }).code;
    // The child's own JSON-RPC error or our coded one say something fit to print; anything else is a bug.
    if (code !== "HUBMCP_STDIO_SERVER_GONE" && typeof code !== "number") throw failure;
    return `the stdio server did not start: ${(failure as Error).message}`;
  }
}
