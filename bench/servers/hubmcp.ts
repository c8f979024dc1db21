// hubmcp serving the same `add` tool as the baseline (and the demo app), with default options.
import { McpServer } from "../../lib/index.ts";
import type { BenchServer } from "./types.ts";

export async function startHubmcp(): Promise<BenchServer> {
  const server = new McpServer("hubmcp-bench");
  server.tool(
    function add(a: number, b: number): number {
      return a + b;
    },
    {
      description: "Add two numbers and return the sum.",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
    },
  );
  const running = await server.listen({ port: 0 });
  return { port: running.port, sessions: () => server.sessions.size, close: () => running.close() };
}
