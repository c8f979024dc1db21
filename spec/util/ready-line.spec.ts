// start_mcp's ready line: what it prints is what readers accept, and anything else (another
// JSON line, a forged or malformed one, an overlong one) is not a ready line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatReadyLine, isPathPrefix, MAX_READY_LINE_CHARS, parseReadyLine } from "../../lib/util/ready-line.ts";

test("a ready line reads back as written, exact bytes pinned", () => {
  const line = formatReadyLine({ url: "http://127.0.0.1:41234/", prefix: "/weber/s%2F1/c00k1e/0" });
  assert.equal(line, '{"hubmcp":"ready","url":"http://127.0.0.1:41234/","prefix":"/weber/s%2F1/c00k1e/0"}');
  assert.deepEqual(parseReadyLine(`  ${line}\r`), { url: "http://127.0.0.1:41234/", prefix: "/weber/s%2F1/c00k1e/0" });
  assert.deepEqual(parseReadyLine(formatReadyLine({ url: "http://[::1]:8000/", prefix: "" })), { url: "http://[::1]:8000/", prefix: "" });
  assert.deepEqual(
    parseReadyLine('{"hubmcp":"ready","url":"http://10.0.0.7:9/","prefix":"","pid":12}'),
    { url: "http://10.0.0.7:9/", prefix: "" },
    "unknown keys are ignored",
  );
});

test("anything else is not a ready line", () => {
  const at = (url: unknown, prefix: unknown = ""): string => JSON.stringify({ hubmcp: "ready", url, prefix });
  for (const line of [
    "MCP server ready at http://127.0.0.1:8000/",
    '{"url":"http://127.0.0.1:1/","prefix":""}',
    '{"hubmcp":"ready",',
    '{"hubmcp":"ready"}',
    at("https://127.0.0.1:1/"),
    at("http://127.0.0.1:1/mcp"),
    at("http://127.0.0.1/"),
    at("http://u:p@127.0.0.1:1/"),
    at("http://127.0.0.1:1/?x=1"),
    at("not a url"),
    at(42),
    at("http://127.0.0.1:1/", "/a/"),
    at("http://127.0.0.1:1/", "/a/../b"),
    at("http://127.0.0.1:1/", "/a b"),
    at("http://127.0.0.1:1/", 7),
    at("http://127.0.0.1:1/", `/${"x".repeat(MAX_READY_LINE_CHARS)}`),
  ]) {
    assert.equal(parseReadyLine(line), null, line.slice(0, 80));
  }
});

test("mount paths", () => {
  for (const ok of ["", "/a", "/weber/1/c/7", "/a.b/%20/c~d"]) assert.equal(isPathPrefix(ok), true, ok);
  for (const bad of ["/", "a", "/a/", "//a", "/./a", "/a/..", "/a?b", "/a#b", "/a b"]) assert.equal(isPathPrefix(bad), false, bad);
});
