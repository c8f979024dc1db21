// `start_mcp --watch`: a change under the app's folder restarts the server with the new code;
// an app that fails to load waits for the next change; a stop signal ends both processes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { alive, launcherEnv, spawnCli, tempDir } from "../helpers/launcher-fixtures.ts";

const app = (answer: string): string =>
  `import { McpServer } from "hubmcp";\nexport const server = new McpServer("watched");\nserver.tool(() => ${JSON.stringify(answer)}, { name: "which" });\n`;

async function which(url: string): Promise<string> {
  const client = new Client({ name: "watch-probe", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}mcp`)));
  try {
    return ((await client.callTool({ name: "which", arguments: {} })).content as { text: string }[])[0]!.text;
  } finally {
    await client.close();
  }
}

/** The URL of the n-th ready line (1-based). */
function readyAt(out: string, n: number): string | undefined {
  return [...out.matchAll(/MCP server ready at (\S+)\n/g)][n - 1]?.[1];
}

test("--watch restarts the server when the app's files change, and stops with it", { timeout: 90_000 }, async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "app.mjs");
  writeFileSync(file, app("one"));
  const cli = spawnCli(t, ["--app", file, "--port", "0", "--watch"], launcherEnv(tempDir(t)));
  await cli.waitFor(/MCP server ready at (\S+)\n/);
  assert.equal(await which(readyAt(cli.stdout(), 1)!), "one");
  assert.match(cli.stderr(), /start_mcp: watching the app's folder; a change restarts the server\n/);

  // A swap file is no reason to restart; a broken app waits for the next change.
  writeFileSync(join(dir, ".app.mjs.swp"), "x");
  writeFileSync(file, "export const server = ;\n");
  await cli.waitForErr(/the app stopped \(1\); waiting for a change to start it again\n/);
  writeFileSync(file, app("two"));
  await cli.waitFor(/(?:MCP server ready at \S+\n[\s\S]*){2}/);
  assert.equal(await which(readyAt(cli.stdout(), 2)!), "two");
  assert.equal(cli.stderr().match(/a file changed; restarting/g)?.length, 2);

  const pids = [cli.child.pid!];
  cli.child.kill("SIGTERM");
  assert.deepEqual(await cli.exit, { code: 0, signal: null });
  assert.ok(!alive(pids[0]!));
  // The server child is gone too: its port refuses.
  await assert.rejects(fetch(readyAt(cli.stdout(), 2)!));
});

test("--watch with an app folder that does not exist says so; with --stdio it is a usage error", { timeout: 30_000 }, async (t) => {
  const missing = spawnCli(t, ["--app", join(tempDir(t), "gone", "app.mjs"), "--watch"], launcherEnv(tempDir(t)));
  assert.equal((await missing.exit).code, 1);
  assert.match(missing.stderr(), /^start_mcp: --watch cannot watch the app's folder\n$/);
  const both = spawnCli(t, ["--app", "x.mjs", "--watch", "--stdio"], launcherEnv(tempDir(t)));
  assert.equal((await both.exit).code, 2);
  assert.match(both.stderr(), /^start_mcp: --watch applies to HTTP, not --stdio\n/);
});
