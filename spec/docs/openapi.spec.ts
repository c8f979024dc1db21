// The `simulate(steps = 100, ctx)` example of docs/writing-tools.md, REST and /openapi.json agree: a tool
// that takes `ctx` answers 409 on `POST /tools/<name>` and is not listed, and the document
// says so; an async tool without `ctx` is listed with its 202.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { McpServer } from "../../lib/index.ts";

const PAGE = readFileSync(new URL("../../docs/writing-tools.md", import.meta.url), "utf8");

/** The page's `simulate` block, run as written (its `step()` supplied). */
function registerReadmeSimulate(server: McpServer): void {
  const block = /```ts\n(server\.asyncTool\(async function simulate[\s\S]*?)```/.exec(PAGE);
  assert.ok(block, "docs/writing-tools.md shows simulate");
  new Function("server", "step", block[1]!)(server, async () => {});
}

test("the documented simulate answers 409 on REST and is not in /openapi.json, as its page says", async (t) => {
  const server = new McpServer("readme-async");
  registerReadmeSimulate(server);
  server.asyncTool(async function fit(points = 10) {
    return { points };
  });
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());

  const rest = await fetch(`${running.url}tools/simulate`, { method: "POST", body: JSON.stringify({ steps: 3 }) });
  assert.equal(rest.status, 409);
  assert.match(((await rest.json()) as { error: string }).error, /call it over MCP \(tools\/call/);
  assert.match(PAGE, /`POST \/tools\/simulate` answers 409 and `\/openapi\.json` does not list it/);

  const doc = (await (await fetch(`${running.url}openapi.json`)).json()) as {
    info: { description: string };
    paths: Record<string, { post?: { responses: object } }>;
  };
  assert.equal(doc.paths["/tools/simulate"], undefined, "a ctx tool is not listed");
  assert.match(doc.info.description, /tools that take a request context .* are not listed here, and answer 409 on REST/);
  assert.deepEqual(Object.keys(doc.paths["/tools/fit"]!.post!.responses).sort(), ["200", "202", "400", "500"]);
  const fit = await fetch(`${running.url}tools/fit`, { method: "POST", body: "{}" });
  assert.deepEqual(await fit.json(), { result: JSON.stringify({ points: 10 }), structuredContent: { points: 10 } });
});
