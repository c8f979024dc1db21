// skills/list and skills/get (SEP-2640) over the protocol: advertised and answered only once
// a skill is registered, entries paginated, unknown URIs -32602, file contents matching their
// digests through resources/read, and the 2026-07-28 cache hints on the listing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "../../../lib/index.ts";
import type { JsonRpcMessage } from "../../../lib/util/jsonrpc.ts";

const FIXTURE = new URL("../../../fixtures/skills/projectile-basics/", import.meta.url).pathname;
const EXT = "io.modelcontextprotocol/skills";

type Answer = { result?: Record<string, any>; error?: { code: number; message: string; data?: any } };
const call = async (server: McpServer, method: string, params?: Record<string, unknown>, sessionId?: string) =>
  (await server.handle({ jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) }, { sessionId })) as Answer;
const init = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } };

test("without a skill nothing is advertised and the methods do not exist", async () => {
  const server = new McpServer("plain");
  server.tool(() => 1, { name: "one", inputSchema: { type: "object" } });
  const caps = (await call(server, "initialize", init)).result!.capabilities;
  assert.equal(caps.extensions?.[EXT], undefined);
  assert.equal((await call(server, "skills/list")).error!.code, -32601);
});

test("a registered skill: advertised, listed, got by URI, its files readable with matching digests", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "hubmcp-skills-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const second = join(root, "second-skill");
  cpSync(FIXTURE, second, { recursive: true });
  writeFileSync(join(second, "SKILL.md"), "---\nname: second-skill\ndescription: Another one\n---\nBody\n");

  const server = new McpServer("skilled", { pageSize: 1 });
  t.after(() => server.sessions.close());
  server.skill(FIXTURE);
  const caps = (await call(server, "initialize", init)).result!.capabilities;
  assert.deepEqual(caps.extensions[EXT], {});
  assert.deepEqual(caps.resources, { subscribe: true, listChanged: true });

  // Registering while sessions exist tells them the resource list changed.
  const session = server.sessions.create()!;
  const got: JsonRpcMessage[] = [];
  session.streams.add({ kind: "mcp", send: (m) => (got.push(m), true), close() {} });
  server.skill(second, { prefix: "team" });
  assert.deepEqual(
    got.map((m) => ("method" in m ? m.method : "")),
    ["notifications/resources/list_changed"],
  );

  const first = await call(server, "skills/list");
  assert.equal(first.result!.skills.length, 1);
  assert.equal(first.result!.skills[0].uri, "skill://projectile-basics/SKILL.md");
  const next = await call(server, "skills/list", { cursor: first.result!.nextCursor });
  assert.equal(next.result!.skills[0].uri, "skill://team/second-skill/SKILL.md");
  assert.equal(next.result!.nextCursor, undefined);

  const got1 = await call(server, "skills/get", { uri: "skill://projectile-basics/SKILL.md" });
  assert.deepEqual(got1.result!.skill, first.result!.skills[0]);
  for (const { uri, digest } of got1.result!.skill.resources as { uri: string; digest: string }[]) {
    const read = await call(server, "resources/read", { uri });
    const text: string = read.result!.contents[0].text;
    assert.equal(`sha256:${createHash("sha256").update(text).digest("hex")}`, digest, uri);
  }
  assert.equal(
    (await call(server, "resources/read", { uri: "skill://projectile-basics/references/FORMULAS.md" })).result!.contents[0].text,
    readFileSync(join(FIXTURE, "references/FORMULAS.md"), "utf8"),
  );
  assert.equal((await call(server, "resources/read", { uri: "skill://projectile-basics/.notes" })).error!.code, -32002);

  const unknown = await call(server, "skills/get", { uri: "skill://nope/SKILL.md" });
  assert.equal(unknown.error!.code, -32602);
  assert.equal(unknown.error!.data.uri, "skill://nope/SKILL.md");
  assert.equal((await call(server, "skills/get", { uri: "skill://projectile-basics/references/FORMULAS.md" })).error!.code, -32602);
  assert.equal((await call(server, "skills/get", {})).error!.code, -32602);
  assert.throws(() => server.skill(FIXTURE), /already registered/);

  // Removing any file of a skill removes the whole skill; the last one gone, nothing is advertised.
  assert.equal(server.removeResource("skill://projectile-basics/references/FORMULAS.md"), true);
  assert.equal((await call(server, "resources/read", { uri: "skill://projectile-basics/SKILL.md" })).error!.code, -32002);
  assert.deepEqual(
    (await call(server, "skills/list")).result!.skills.map((s: { uri: string }) => s.uri),
    ["skill://team/second-skill/SKILL.md"],
  );
  assert.equal(server.removeResource("skill://team/second-skill/SKILL.md"), true);
  assert.deepEqual((await call(server, "skills/list")).result!.skills, []);
  assert.equal((await call(server, "initialize", init)).result!.capabilities.extensions?.[EXT], undefined);
  assert.equal(got.filter((m) => "method" in m && m.method === "notifications/resources/list_changed").length, 3);
});

test("over MCP 2026-07-28: discover names the extension; skills/list and skills/get carry ttlMs and cacheScope", async (t) => {
  const server = new McpServer("skilled-2026", {
    cache: { methods: { "skills/list": { ttlMs: 30_000, cacheScope: "public" }, "skills/get": { ttlMs: 5_000, cacheScope: "public" } } },
  });
  server.skill(FIXTURE);
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const post = async (method: string, params: Record<string, unknown> = {}) => {
    const res = await fetch(`${running.url}mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
    });
    return (await res.json()) as Answer;
  };
  assert.deepEqual((await post("server/discover")).result!.capabilities.extensions[EXT], {});
  const list = (await post("skills/list")).result!;
  assert.deepEqual([list.ttlMs, list.cacheScope, list.resultType], [30_000, "public", "complete"]);
  assert.equal(list.skills[0].frontmatter.name, "projectile-basics");
  // SEP-2640 (final): GetSkillResult is a CacheableResult, and every file carries its size.
  const got = (await post("skills/get", { uri: "skill://projectile-basics/SKILL.md" })).result!;
  assert.deepEqual([got.ttlMs, got.cacheScope, got.resultType], [5_000, "public", "complete"]);
  assert.deepEqual(got.skill, list.skills[0]);
  assert.deepEqual(
    got.skill.resources.map((r: { size: number }) => r.size),
    [readFileSync(join(FIXTURE, "SKILL.md")).length, readFileSync(join(FIXTURE, "references/FORMULAS.md")).length],
  );
  // Without a hint of its own it takes the safe default, as every cacheable result does.
  const plain = new McpServer("skilled-plain");
  plain.skill(FIXTURE);
  const running2 = await plain.listen({ port: 0 });
  t.after(() => running2.close());
  const res = await fetch(`${running2.url}mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "skills/get",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "skills/get", params: { uri: "skill://projectile-basics/SKILL.md", _meta: meta } }),
  });
  const fallback = ((await res.json()) as Answer).result!;
  assert.deepEqual([fallback.ttlMs, fallback.cacheScope], [0, "private"]);
});
