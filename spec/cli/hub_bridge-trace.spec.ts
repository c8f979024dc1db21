// Trace context from a desktop assistant through hub_bridge: the bridge passes the client's
// `_meta.traceparent` on untouched, so the gateway continues it and the tool server's span is
// in the client's trace, both on a tool's own endpoint and through the one connector (/mcp).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { startHarness } from "../gateway/helpers.ts";
import { spawnBridge } from "../bridge/bridge-client.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = `00-${TRACE}-00f067aa0ba902b7-01`;

test("a client's trace crosses hub_bridge and the gateway into the tool", { timeout: 60_000 }, async (t) => {
  const h = await startHarness(
    t,
    { tools: { tracing: { env: ["TRACING_TOOL_XML"], revisions: { default: { app: "fixtures/tracing/app.ts" } } } } },
    { childEnv: { ...process.env, NODE_V8_COVERAGE: "", TRACING_TOOL_XML: fileURLToPath(new URL("../../fixtures/rappture/trace/tool.xml", import.meta.url)) } },
  );
  for (const tools of ["tracing", "*"]) {
    const bridge = spawnBridge(t, { HUB_TOKEN: h.tokens.alice, HUB_API: h.base, HUB_TOOLS: tools });
    await bridge.client.connect(bridge.transport);
    const name = tools === "*" ? "tracing_where_am_i" : "where_am_i";
    const result = await bridge.client.callTool({ name, arguments: {}, _meta: { traceparent: PARENT, tracestate: "v=1" } }, CallToolResultSchema);
    const seen = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
    assert.equal(seen.traceId, TRACE, `the tool's span is in the client's trace (HUB_TOOLS=${tools})`);
    assert.equal(seen.tracestate, "v=1");
  }
});
