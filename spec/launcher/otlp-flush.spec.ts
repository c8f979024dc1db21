// start_mcp stopped by a signal sends the spans of its last calls before it exits: the batch
// exporter waits a second for company, and a process gone in that second must not lose them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startCollector } from "../helpers/otlp.ts";
import { launcherEnv, rpcAt, spawnCli, tempDir, writeApp } from "../helpers/launcher-fixtures.ts";

test("start_mcp flushes queued spans on SIGTERM", { timeout: 60_000 }, async (t) => {
  const collector = await startCollector(t);
  const app = writeApp(tempDir(t));
  const env = launcherEnv(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: "flush-spec" });
  const cli = spawnCli(t, ["--app", app, "--host", "127.0.0.1", "--port", "0"], env);
  const [, url] = await cli.waitFor(/MCP server ready at (\S+)/);
  const answer = await rpcAt(url!, "tools/call", { name: "echo", arguments: { text: "hi" } });
  assert.equal(answer.error, undefined);
  cli.child.kill("SIGTERM");
  assert.equal((await cli.exit).code, 0);
  assert.ok(
    collector.bodies.some((b) => b.includes('"stringValue":"flush-spec"') && b.includes("tools/call echo")),
    "the call's span reached the collector before start_mcp exited",
  );
});
