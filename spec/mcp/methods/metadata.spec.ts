// `title` and `icons` travel on server info, tools, resources, templates and prompts (MCP 2025-11-25 BaseMetadata / Icons).
import { test } from "node:test";
import assert from "node:assert/strict";
import { content, McpServer } from "../../../lib/index.ts";

const icons = [{ src: "https://example.org/icon.png", mimeType: "image/png", sizes: ["48x48"], theme: "light" as const }];

test("titles and icons appear in initialize and every list", async () => {
  const server = new McpServer("meta", { title: "Meta Server", icons, websiteUrl: "https://example.org" });
  server.tool(() => 1, { name: "t", title: "Tool", icons, inputSchema: { type: "object" } });
  server.resource("x://r", () => "r", { title: "Resource", icons });
  server.resource("x://t/{id}", () => "t", { title: "Template", icons });
  server.prompt(() => "p", { name: "p", title: "Prompt", icons, arguments: [] });
  const ask = async (method: string, params?: Record<string, unknown>) =>
    ((await server.handle({ jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) })) as { result: Record<string, any> }).result;
  const init = await ask("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } });
  assert.deepEqual(init.serverInfo, { name: "meta", version: "1.0.0", title: "Meta Server", websiteUrl: "https://example.org", icons });
  for (const [method, key, title] of [
    ["tools/list", "tools", "Tool"],
    ["resources/list", "resources", "Resource"],
    ["resources/templates/list", "resourceTemplates", "Template"],
    ["prompts/list", "prompts", "Prompt"],
  ] as const) {
    const entry = (await ask(method))[key][0];
    assert.equal(entry.title, title, method);
    assert.deepEqual(entry.icons, icons, method);
  }
  assert.throws(() => server.tool(() => 1, { name: "bad", icons: [{}] as never, inputSchema: { type: "object" } }), /icons must be an array/);
});

test("tools return every content block kind", async () => {
  const server = new McpServer("blocks");
  const blocks = [
    content.text("t"),
    content.image(new Uint8Array([1, 2, 3]), "image/png"),
    content.audio("AAAA", "audio/wav"),
    content.resource("x://doc", "body", "text/plain"),
    content.resource("x://bin", new Uint8Array([255]).buffer),
    content.link("x://doc", "doc", { mimeType: "text/plain", title: "Doc" }),
  ];
  server.tool(() => ({ content: blocks }), { name: "all", inputSchema: { type: "object" } });
  const res = (await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "all" } })) as unknown as { result: { content: unknown[] } };
  assert.deepEqual(res.result.content, [
    { type: "text", text: "t" },
    { type: "image", data: "AQID", mimeType: "image/png" },
    { type: "audio", data: "AAAA", mimeType: "audio/wav" },
    { type: "resource", resource: { uri: "x://doc", mimeType: "text/plain", text: "body" } },
    { type: "resource", resource: { uri: "x://bin", blob: "/w==" } },
    { type: "resource_link", uri: "x://doc", name: "doc", mimeType: "text/plain", title: "Doc" },
  ]);
});
