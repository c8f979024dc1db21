// The one revision decision (lib/mcp/revision.ts), as a table: what each transport hands it
// (the version header, if it has headers; the parsed body, if it parsed one) and the answer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { classifyProtocolRevision } from "../../lib/mcp/revision.ts";
import { META } from "../../lib/mcp/stateless/envelope.ts";

const V = "2026-07-28";
const meta = { [META.protocolVersion]: V, [META.clientCapabilities]: {} };
const call = (params: unknown) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params });

const CASES: [name: string, header: string | undefined, body: unknown, kind: "session" | "stateless" | "refused"][] = [
  ["no header, no envelope (stdio, handle())", undefined, call({ name: "x" }), "session"],
  ["no header, nothing parsed (the gateway)", undefined, undefined, "session"],
  ["initialize with a 2025 header", "2025-11-25", { jsonrpc: "2.0", id: 1, method: "initialize", params: {} }, "session"],
  ["every supported session revision", "2024-11-05", call({}), "session"],
  ["a 2026 header alone (the gateway)", V, undefined, "stateless"],
  ["a 2026 header, padded", ` ${V} `, call({}), "stateless"],
  ["the envelope without a header (stdio)", undefined, call({ _meta: meta }), "stateless"],
  ["the envelope decides over a 2025 header; its checks then refuse the mismatch", "2025-11-25", call({ _meta: meta }), "stateless"],
  ["the envelope over an unknown header", "v999", call({ _meta: meta }), "stateless"],
  ["a `_meta` without the version key", undefined, call({ _meta: { progressToken: 1 } }), "session"],
  ["an unknown header without the envelope", "v999", call({ _meta: { progressToken: 1 } }), "refused"],
  ["an unknown header on a batch", "v999", [call({})], "refused"],
  ["a batch under a 2026 header: 2026-07-28 has no batches", V, [call({ _meta: meta })], "refused"],
  ["a batch of enveloped requests without a header", undefined, [call({ _meta: meta })], "session"],
  ["a non-object body", undefined, "hello", "session"],
  ["params that are not an object", undefined, call([meta]), "session"],
];

for (const [name, header, body, kind] of CASES) {
  test(`classifyProtocolRevision: ${name} -> ${kind}`, () => {
    assert.equal(classifyProtocolRevision(header, body).kind, kind);
  });
}

test("a refusal names the versions served and carries no HTTP status", () => {
  const revision = classifyProtocolRevision("v999", call({}));
  assert.deepEqual(revision, {
    kind: "refused",
    refusal: "unsupported-version",
    error: { code: -32600, message: "Bad Request: unsupported MCP-Protocol-Version (supported: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25)" },
  });
});

test("no file but the classifier asks which revision a version names: HTTP, stdio, handle(), the gateway and its connector all go through classifyProtocolRevision", () => {
  const lib = fileURLToPath(new URL("../../lib/", import.meta.url));
  const definers = new Set(["mcp/revision.ts", "mcp/versions.ts", "mcp/stateless/envelope.ts"]);
  const askers = readdirSync(lib, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !definers.has(f.split(sep).join("/")))
    .filter((f) => /\bis(Stateless|Supported)Version\(/.test(readFileSync(join(lib, f), "utf8")));
  assert.deepEqual(askers, []);
});
