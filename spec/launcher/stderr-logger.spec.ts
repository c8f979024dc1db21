// start_mcp's logger: one line per entry (line breaks flattened, long values cut), other
// fields in parentheses, the stack and debug entries only under --debug.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatEntry, stderrLogger } from "../../lib/launcher/stderr-logger.ts";

test("an entry is one line: what, which handler, the message, then the other fields", () => {
  assert.equal(
    formatEntry("start_mcp", "tool handler failed", { handler: "fit", error: "a\r\n  b", stack: "Error: a\n    at x" }),
    "start_mcp: tool handler failed: fit: a b",
  );
  assert.equal(
    formatEntry("start_mcp", "method failed", { method: "tools/list", error: "boom", count: 2 }),
    "start_mcp: method failed: boom (method=tools/list, count=2)",
  );
  const long = formatEntry("start_mcp", "x", { error: "y".repeat(5000) });
  assert.ok(long.length < 1100 && long.endsWith("…"));
});

test("debug entries and stacks appear only with --debug", () => {
  const quiet: string[] = [];
  const loud: string[] = [];
  for (const [lines, debug] of [
    [quiet, false],
    [loud, true],
  ] as const) {
    const logger = stderrLogger((line) => lines.push(line), debug);
    logger.debug("async run started", { tool: "fit" });
    logger.info("note");
    logger.warn("careful");
    logger.error("tool handler failed", { handler: "fit", error: "boom", stack: "Error: boom\n    at fit (app.mjs:3:9)" });
  }
  assert.deepEqual(quiet, ["start_mcp: note", "start_mcp: careful", "start_mcp: tool handler failed: fit: boom"]);
  assert.deepEqual(loud, [
    "start_mcp: async run started (tool=fit)",
    "start_mcp: note",
    "start_mcp: careful",
    "start_mcp: tool handler failed: fit: boom",
    "    at fit (app.mjs:3:9)",
  ]);
});
