// start_mcp with TypeScript apps in this repository: doc comments survive compiling,
// ./x.js imports find ./x.ts, and imports of the library's source reach the running copy
// (fixtures/demo/app.ts is loaded this way).
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { launcherEnv, LIB_INDEX, rpcAt, spawnCli, tempDir } from "../helpers/launcher-fixtures.ts";

const env = (dir: string): NodeJS.ProcessEnv => launcherEnv(join(dir, "cache"));

const rpc = rpcAt;

test("a TypeScript app keeps its doc-comment descriptions and resolves ./x.js to ./x.ts; hubmcp's own source maps to the running copy", {
  timeout: 90_000,
}, async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "units.ts"), "export const unit: string = 'm';\n");
  writeFileSync(
    join(dir, "app.ts"),
    `import { McpServer } from ${JSON.stringify(LIB_INDEX)};
import { unit } from "./units.js";
export const server = new McpServer("ts-app");
server.tool(function length(x: number): string {
  /** Length of x, in metres. */
  return x + unit;
}, { inputSchema: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } });
`,
  );
  const cli = spawnCli(t, ["--app", join(dir, "app.ts"), "--host", "127.0.0.1", "--port", "0"], env(dir));
  const [, url] = await cli.waitFor(/ready at (\S+)\n/);
  const tools = (await rpc(url!, "tools/list")).result!.tools as { name: string; description: string }[];
  assert.deepEqual(
    tools.map((x) => [x.name, x.description]),
    [["length", "Length of x, in metres."]],
  );
  const call = await rpc(url!, "tools/call", { name: "length", arguments: { x: 3 } });
  assert.deepEqual((call.result!.content as { text: string }[])[0]!.text, "3m");
  assert.doesNotMatch(cli.stderr(), /tsx/);
});
