// A tool accepts the same arguments whichever loader ran its file (issue 22, point 5). An
// app served with `node --import tsx app.ts` and server.listen() gets no types from its
// TypeScript annotations, so a handler whose parameters would go untyped is refused at
// registration, with the way to declare them; `input` (or `inputSchema`) works everywhere.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { callerFile, markTypeScriptCompiled } from "../../lib/registry/origin.ts";
import { defineTool } from "../../lib/registry/tools.ts";
import { post, rpc } from "../helpers/rpc.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const LIB = pathToFileURL(join(ROOT, "lib/index.ts")).href;

const APP = `
import { McpServer, s } from ${JSON.stringify(LIB)};
export const server = new McpServer("tsx-app");
let refused = "";
try {
  server.tool(function divide(a: number, b: number) {
    return a / b;
  });
} catch (err) {
  refused = \`\${(err as { code: string }).code}: \${(err as Error).message}\`;
}
server.tool(({ a, b }) => a / b, { name: "divide", input: { a: s.number(), b: s.number() } });
const running = await server.listen({ port: 0 });
process.stdout.write(JSON.stringify({ url: running.url, refused }) + "\\n");
process.stdin.on("end", () => void running.close());
process.stdin.resume();
`;

test("served by node --import tsx and server.listen(): untyped parameters are refused, `input` is enforced", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-tsx-app-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "app.ts");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(file, APP);
  const child = spawn(process.execPath, ["--import", "tsx", file], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin.end();
      child.kill();
      await once(child, "exit");
    }
  });
  const exited = once(child, "exit").then(([code]) => Promise.reject(new Error(`the app exited (${String(code)}) before listening`)));
  const [line] = (await Promise.race([once(createInterface({ input: child.stdout }), "line"), exited])) as [string];
  const { url, refused } = JSON.parse(line) as { url: string; refused: string };
  assert.match(refused, /^HUBMCP_INVALID_DEFINITION: Tool divide: parameter a, b has no type this loader passes on/);
  assert.match(refused, /`input: \{ a: s\.number\(\), b: s\.number\(\) \}` or an `inputSchema`/);

  const accept = { accept: "application/json, text/event-stream" };
  const list = await post(`${url}mcp`, rpc(1, "tools/list"), accept);
  assert.deepEqual(list.json.result.tools[0].inputSchema, {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  });
  const six = await post(`${url}mcp`, rpc(2, "tools/call", { name: "divide", arguments: { a: "six", b: 2 } }), accept);
  assert.deepEqual(six.json.result, { content: [{ type: "text", text: "Invalid arguments: /a: must be number" }], isError: true });
  const ok = await post(`${url}mcp`, rpc(3, "tools/call", { name: "divide", arguments: { a: 6, b: 3 } }), accept);
  assert.deepEqual(ok.json.result.content, [{ type: "text", text: "2" }]);
});

test("the caller is the first frame outside the package, as a file path", () => {
  const own = fileURLToPath(new URL("../../lib/server.ts", import.meta.url));
  const stack = [
    "Error",
    `    at McpServer.tool (${pathToFileURL(own).href}:12:3)`,
    "    at node:internal/modules/esm/module_job:1:1",
    "    at file:///home/ada/lab/app.ts:5:8",
  ].join("\n");
  assert.equal(callerFile(stack), "/home/ada/lab/app.ts");
  assert.equal(callerFile("Error\n    at Object.<anonymous> (/srv/app.mjs:1:2)"), "/srv/app.mjs");
  assert.equal(callerFile("Error\n    at <anonymous>"), undefined);
  assert.equal(callerFile(undefined), undefined);
});

test("once start_mcp compiled the app, an untyped handler is told the annotation to write, destructured or positional", (t) => {
  const key = Symbol.for("hubmcp.typeScriptCompiled");
  t.after(() => delete (globalThis as Record<symbol, unknown>)[key]);
  markTypeScriptCompiled();
  const untyped = new Function("return [({ a, b }) => a + b, function mul(x, y) { return x * y; }]")() as [(args: object) => number, Function];
  assert.throws(() => defineTool(untyped[0], { name: "add" }, "sync", true), {
    message:
      "Tool add: parameter a, b has no type; write its type in the parameter list, `({ a, b }: { a: number; b: number })`, or declare `input: { a: s.number(), b: s.number() }`",
  });
  assert.throws(
    () => defineTool(untyped[1] as (x: unknown) => unknown, {}, "sync", true),
    /^TypeError: Tool mul: parameter x, y has no type; write its type in the parameter list, `\(x: number, y: number\)`/,
  );
});
