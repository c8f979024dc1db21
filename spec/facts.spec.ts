// Small facts are decided in one function each (issue 35, point 7). This spec reads every
// file of lib/ and cli/ and fails where a second copy of one appears: the way to add a
// caller is to import the function named in the failure.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return files(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** A file's text without its comments' lines, which may name a fact without deciding it. */
const code = (text: string): string =>
  text
    .split("\n")
    .filter((line) => !/^\s*(?:\/\/|\/\*|\*)/.test(line))
    .join("\n");

const SOURCES = [...files(join(ROOT, "lib")), ...files(join(ROOT, "cli"))].map((path) => ({
  file: relative(ROOT, path),
  text: code(readFileSync(path, "utf8")),
}));

/** The files other than `home` whose text matches `pattern`. */
function copiesOutside(home: string | readonly string[], pattern: RegExp): string[] {
  const homes = typeof home === "string" ? [home] : home;
  return SOURCES.filter((s) => !homes.includes(s.file) && pattern.test(s.text)).map((s) => s.file);
}

test("a JSON object is told from other values only by isRecord (lib/util/guards.ts)", () => {
  assert.deepEqual(copiesOutside("lib/util/guards.ts", /typeof (\w+) === "object" && \1 !== null && !Array\.isArray\(\1\)/), []);
  assert.deepEqual(copiesOutside("lib/util/guards.ts", /(?:function|const) isRecord\b/), []);
});

test("the spec sees a copy where there is one", () => {
  const copy = 'const isObj = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);';
  assert.match(copy, /typeof (\w+) === "object" && \1 !== null && !Array\.isArray\(\1\)/);
});

test("secrets are compared and signed only in lib/util/secrets.ts", () => {
  assert.deepEqual(copiesOutside("lib/util/secrets.ts", /\btimingSafeEqual\b|\bcreateHmac\b/), []);
});

test("a Cookie header is split only in lib/http/cookies.ts", () => {
  assert.deepEqual(copiesOutside("lib/http/cookies.ts", /cookie[\s\S]{0,200}?\.split\(\s*";"\s*\)/i), []);
});

test("the session a request names is read only in lib/http/session-ref.ts", () => {
  assert.deepEqual(copiesOutside("lib/http/session-ref.ts", /(?:query|params)\??\.get\("session_?[iI]d"\)/), []);
  assert.deepEqual(copiesOutside("lib/http/session-ref.ts", /req\.headers\["mcp-session-id"\]/), []);
});

test("which stream events carry messages is decided only by carriesMessage (lib/http/sse-reader.ts)", () => {
  assert.deepEqual(copiesOutside("lib/http/sse-reader.ts", /\.event\s*[!=]==\s*"message"/), []);
});

test("SSE response headers are written from SSE_HEADERS (lib/http/sse.ts) only", () => {
  assert.deepEqual(copiesOutside("lib/http/sse.ts", /"no-cache, no-transform"/), []);
});

test("MCP extension ids and _meta keys are spelled only in lib/mcp/extension-ids.ts", () => {
  assert.deepEqual(copiesOutside("lib/mcp/extension-ids.ts", /["'`]io\.modelcontextprotocol\//), []);
});

test("loopback hosts are recognised only in lib/http/loopback.ts", () => {
  // listen.ts picks the address a wildcard bind is reached at, ip-ranges.ts which addresses are
  // public: other facts that name ::1 without deciding what loopback is.
  const others = ["lib/http/listen.ts", "lib/gateway/oauth/ip-ranges.ts"];
  assert.deepEqual(copiesOutside(["lib/http/loopback.ts", ...others], /\^127\\\\\.|["']\[?::1\]?["']/), []);
});

test("a Content-Type header is read only in lib/http/content-type.ts", () => {
  assert.deepEqual(
    copiesOutside(
      "lib/http/content-type.ts",
      /["']content-type["']\)?\s*\]?\s*\?\?\s*""\)?\.(?:split|toLowerCase)|text\\\/event-stream\/i?\.test|charset\\s\*=/,
    ),
    [],
  );
});

test("host syntax is decided only in lib/http/host-syntax.ts", () => {
  assert.deepEqual(copiesOutside("lib/http/host-syntax.ts", /\[0-9A-Fa-f:\.\]\+/), []);
});
