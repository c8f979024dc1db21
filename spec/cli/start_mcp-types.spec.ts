// start_mcp with a TypeScript app that lives outside this repository and imports
// "hubmcp" without installing it: parameter types become the input schema, bad
// arguments are refused, --debug lists the types with no schema, and the ready line
// names the address actually bound.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { launcherEnv, rpcAt, spawnCli, tempDir } from "../helpers/launcher-fixtures.ts";

const env = (dir: string): NodeJS.ProcessEnv => launcherEnv(join(dir, "cache"));

const rpc = rpcAt;

const APP = `import { McpServer, type ToolContext } from "hubmcp";

export const server = new McpServer("typed-tool");

server.tool(function divide(a: number, b: number) {
  /** Divide a by b. */
  return a / b;
});

/**
 * Scale a series.
 * @param values the samples
 * @param factor - multiplies every sample
 */
function scale(values: number[], mode: "sum" | "max", factor = 2, label?: string, since?: Date, ctx?: ToolContext) {
  ctx?.info("scaling");
  const scaled = values.map((v) => v * factor);
  return mode === "sum" ? scaled.reduce((x, y) => x + y, 0) : Math.max(...scaled);
}
server.tool(scale);

server.prompt(function summarize_run(run_id: string, audience?: string, tone = "plain") {
  /** Summarise a run for a reader. */
  return \`Summarise run \${run_id} for \${audience ?? "anyone"}, \${tone}.\`;
});
`;

test("a .ts app's parameter types are its schema; wrong types are refused; --debug lists what has no schema", { timeout: 90_000 }, async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "app.ts"), APP);
  const cli = spawnCli(t, ["--app", join(dir, "app.ts"), "--host", "127.0.0.1", "--port", "0", "--debug"], env(dir));
  const [, url] = await cli.waitFor(/ready at (\S+)\n/);
  const tools = (await rpc(url!, "tools/list")).result.tools as { name: string; description: string; inputSchema: unknown }[];
  assert.deepEqual(tools, [
    {
      name: "divide",
      description: "Divide a by b.",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    },
    {
      name: "scale",
      description: "Scale a series.",
      inputSchema: {
        type: "object",
        properties: {
          values: { type: "array", items: { type: "number" }, description: "the samples" },
          mode: { type: "string", enum: ["sum", "max"] },
          factor: { type: "number", default: 2, description: "multiplies every sample" },
          label: { type: "string" },
          since: {},
        },
        required: ["values", "mode"],
      },
    },
  ]);
  const refused = await rpc(url!, "tools/call", { name: "divide", arguments: { a: "six", b: 2 } });
  assert.deepEqual(refused.result, { content: [{ type: "text", text: "Invalid arguments: /a: must be number" }], isError: true });
  const scaled = await rpc(url!, "tools/call", { name: "scale", arguments: { values: [1, 2.5], mode: "sum", factor: 0.5, since: "today" } });
  assert.equal((scaled.result.content as { text: string }[])[0]!.text, "1.75");
  assert.match(cli.stderr(), /parameter types with no JSON Schema equivalent \(these accept any value\):\n {2}app\.ts line \d+ scale\(since: Date\)\n/);
  assert.equal(cli.stderr().match(/since: Date/g)!.length, 1, "listed once");
  // Prompts read their arguments as tools do: `?` and a default are not required.
  const prompts = (await rpc(url!, "prompts/list")).result.prompts;
  assert.deepEqual(prompts, [
    {
      name: "summarize_run",
      description: "Summarise a run for a reader.",
      arguments: [
        { name: "run_id", required: true },
        { name: "audience", required: false },
        { name: "tone", required: false },
      ],
    },
  ]);
  const got = await rpc(url!, "prompts/get", { name: "summarize_run", arguments: { run_id: "r7" } });
  assert.deepEqual(got.result.messages, [{ role: "user", content: { type: "text", text: "Summarise run r7 for anyone, plain." } }]);
  const missing = await rpc(url!, "prompts/get", { name: "summarize_run", arguments: { audience: "a" } });
  assert.deepEqual(missing.error, { code: -32602, message: "Missing required argument: run_id" });
});

test("the ready line names the address bound: 0.0.0.0 stays 0.0.0.0", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "app.mjs"), `import { McpServer } from "hubmcp";\nexport const server = new McpServer("any");\n`);
  const cli = spawnCli(t, ["--app", join(dir, "app.mjs"), "--host", "0.0.0.0", "--port", "0"], env(dir));
  const [, port] = await cli.waitFor(/^MCP server ready at http:\/\/0\.0\.0\.0:(\d+)\/\nSSE endpoint: http:\/\/0\.0\.0\.0:\d+\/sse\n/);
  const info = (await (await fetch(`http://127.0.0.1:${port}/`)).json()) as { name: string };
  assert.equal(info.name, "any");
  // One line says what that exposes, and how to keep it local.
  await cli.waitForErr(/start_mcp: listening on 0\.0\.0\.0, beyond this machine: .+--host 127\.0\.0\.1 keeps it on this machine\)\n/);
  assert.equal(cli.stderr().match(/beyond this machine/g)?.length, 1);
});

test("an untyped handler in a .ts app start_mcp compiles: the refusal says what to write, not that nothing compiled it", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const app = `import { McpServer } from "hubmcp";\nexport const server = new McpServer("untyped");\nserver.tool(({ a, b }) => a + b, { name: "add" });\n`;
  writeFileSync(join(dir, "app.ts"), app);
  const cli = spawnCli(t, ["--app", join(dir, "app.ts"), "--host", "127.0.0.1", "--port", "0"], env(dir));
  const { code } = await cli.exit;
  assert.notEqual(code, 0);
  assert.match(
    cli.stderr(),
    /Tool add: parameter a, b has no type; write its type in the parameter list, `\(\{ a, b \}: \{ a: number; b: number \}\)`, or declare `input: \{ a: s\.number\(\), b: s\.number\(\) \}`/,
  );
  assert.doesNotMatch(cli.stderr(), /only when start_mcp compiles/);
});
