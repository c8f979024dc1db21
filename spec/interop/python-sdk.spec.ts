// The official Python SDK (`mcp`, from the machine's package index) over streamable HTTP and
// legacy SSE: it works, and it logs no warning. It warns "Unknown SSE event" on any event but
// `endpoint` and `message`, which the GET /mcp `endpoint` event and the /sse `open` event used
// to be (docs/decisions.md, Streams).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { McpServer } from "../../lib/index.ts";
import { pythonWith } from "../helpers/python-venv.ts";

const run = promisify(execFile);
const CLIENT = fileURLToPath(new URL("./python-client.py", import.meta.url));

function app(): McpServer {
  const server = new McpServer("py-interop");
  server.tool(({ text }: { text: string }) => text, { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } });
  // Each call adds a tool, so the session is told the list changed on its standalone stream.
  server.tool(
    ({ n }: { n: number }) => {
      server.tool(() => n, { name: `grown_${n}` });
      return "ok";
    },
    { name: "grow", inputSchema: { type: "object", properties: { n: { type: "integer" } } } },
  );
  return server;
}

test("the Python SDK client connects over streamable HTTP and SSE without a warning", { timeout: 600_000 }, async (t) => {
  const env = await pythonWith("mcp", ["mcp"]);
  // CI has the package index .ci/run relies on: there a missing client is a failure, not a skip.
  if ("missing" in env && process.env.CI) throw new Error(`needs ${env.missing}: CI must run the Python client spec`);
  if ("missing" in env) return t.skip(`needs ${env.missing}`);
  const running = await app().listen({ port: 0 });
  t.after(() => running.close());
  const { stdout, stderr } = await run(env.python, [CLIENT, running.url], { timeout: 120_000 });
  assert.equal(stdout, "streamable True True streamable\nsse True True sse\n");
  assert.doesNotMatch(stderr, /Unknown SSE event/);
  assert.equal(stderr, "");
});
