// The demo app a newcomer runs first: every tool, resource and prompt over real HTTP.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { server } from "../fixtures/demo/app.ts";
import type { RunningServer } from "../lib/index.ts";
import { post, rpc } from "./helpers/rpc.ts";

let running: RunningServer;
before(async () => {
  running = await server.listen({ port: 0 });
});
after(() => running.close());

const call = async (name: string, args: Record<string, unknown>) =>
  (await post(`${running.url}mcp`, rpc(1, "tools/call", { name, arguments: args }))).json.result;

test("lists the demo's tools with typed schemas", async () => {
  const tools = (await post(`${running.url}mcp`, rpc(1, "tools/list"))).json.result.tools;
  assert.deepEqual(
    tools.map((t: { name: string }) => t.name),
    ["add", "divide", "projectile", "slow_sum", "get_job_result", "ask_user"],
  );
  const add = tools[0];
  assert.deepEqual(add.inputSchema, {
    type: "object",
    properties: { a: { type: "number", description: "First addend" }, b: { type: "number", description: "Second addend" } },
    required: ["a", "b"],
  });
  assert.deepEqual(tools[2].outputSchema.required, ["range_m", "flight_time_s", "max_height_m"]);
});

test("add, divide and projectile", async () => {
  assert.equal((await call("add", { a: 2, b: 3 })).content[0].text, "5");
  assert.equal((await call("divide", { a: 1, b: 4 })).content[0].text, "0.25");
  assert.deepEqual(await call("divide", { a: 1, b: 0 }), { content: [{ type: "text", text: "Cannot divide by zero" }], isError: true });
  const flight = await call("projectile", { speed: 20, angle: 45 });
  assert.deepEqual(flight.structuredContent, { range_m: 40.775, flight_time_s: 2.883, max_height_m: 10.194 });
  const bad = await call("projectile", { speed: -1, angle: 100 });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /\/speed.*\/angle/s);
  assert.deepEqual((await post(`${running.url}tools/add`, { a: 40, b: 2 })).json, { result: "42" });
});

test("the settings resource, the plot app and the explain prompt", async () => {
  const settings = (await post(`${running.url}mcp`, rpc(1, "resources/read", { uri: "config://demo/settings" }))).json.result.contents[0];
  assert.deepEqual(JSON.parse(settings.text), { units: "SI", precision: 3, gravity: 9.81 });
  const plot = (await post(`${running.url}mcp`, rpc(2, "resources/read", { uri: "ui://demo/plot" }))).json.result.contents[0];
  assert.equal(plot.mimeType, "text/html;profile=mcp-app");
  // A self-contained plot: inline SVG and script, nothing loaded from elsewhere.
  assert.match(plot.text, /<svg id="plot"/);
  assert.match(plot.text, /ui\/initialize/);
  assert.doesNotMatch(plot.text, /<script[^>]+src=|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  const prompt = (await post(`${running.url}mcp`, rpc(3, "prompts/get", { name: "explain", arguments: { topic: "drag" } }))).json.result;
  assert.match(prompt.messages[0].content.text, /Explain drag/);
});
