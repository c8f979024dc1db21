// Loads apps for real in this process (Node keeps loaded modules and hooks for the life
// of a process), so it lives apart from app-loader.spec.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadApp, locateTsTools, prepareTypeScript, TSX_NOTE } from "../../lib/launcher/app-loader.ts";
import { LIB_INDEX, tempDir } from "../helpers/launcher-fixtures.ts";

interface Listed {
  result: { tools: { name: string; description?: string; inputSchema: unknown }[] };
}

test("a .ts app compiles outside its folder: doc comments, relative .ts imports and parameter types survive", async (t) => {
  const dir = tempDir(t);
  const env = { ...process.env, XDG_CACHE_HOME: join(dir, "cache") };
  writeFileSync(join(dir, "dep.ts"), "export const two: number = 2;\n");
  writeFileSync(
    join(dir, "app.ts"),
    `import { McpServer, type ToolContext } from ${JSON.stringify(LIB_INDEX)};
import { two } from "./dep.js";
export const server = new McpServer("typed");
server.tool(function twice(x: number, when: Date, ctx?: ToolContext): number {
  /** Doubles x. */
  return x * two;
});
`,
  );
  const loaded = await loadApp(join(dir, "app.ts"), { env });
  assert.equal(loaded.kind, "ok", loaded.kind === "error" ? loaded.message : "");
  if (loaded.kind !== "ok") return;
  assert.deepEqual(loaded.unexpressible, ["app.ts line 4 twice(when: Date)"]);
  const server = loaded.server as unknown as { handle(m: object): Promise<unknown> };
  const listed = (await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/list" })) as Listed;
  assert.deepEqual(listed.result.tools[0], {
    name: "twice",
    description: "Doubles x.",
    inputSchema: { type: "object", properties: { x: { type: "number" }, when: {} }, required: ["x", "when"] },
  });
});

test("tsx loading returns its note", async (t) => {
  const file = join(tempDir(t), "doc.ts");
  const tools = locateTsTools(file);
  assert.ok(tools.tsx);
  assert.deepEqual(await prepareTypeScript({ kind: "tsx", tsx: tools.tsx }, file), { note: TSX_NOTE });
});
