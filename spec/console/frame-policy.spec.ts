// The app frame's policy: the declared domains of a resource's _meta.ui.csp go into their
// directives, anything that is not a bare origin is dropped, and nothing is ever looser
// than the MCP Apps default (no 'self', no network without a declared domain).
import { test } from "node:test";
import assert from "node:assert/strict";
import { framePolicy, parseFrameCsp } from "../../lib/console/frame-policy.ts";
import { McpServer } from "../../lib/index.ts";

const directives = (policy: string): Map<string, string> => new Map(policy.split("; ").map((d) => [d.split(" ")[0]!, d.slice(d.indexOf(" ") + 1)]));

test("without declared domains the frame may run inline code and reach nothing", () => {
  const d = directives(framePolicy(parseFrameCsp(null)));
  assert.equal(d.get("sandbox"), "allow-scripts");
  assert.equal(d.get("default-src"), "'none'");
  assert.equal(d.get("script-src"), "'unsafe-inline'");
  assert.equal(d.get("connect-src"), "'none'");
  assert.equal(d.get("frame-src"), "'none'");
  assert.equal(d.get("base-uri"), "'none'");
  assert.equal(d.get("img-src"), "data: blob:");
  // 'self' only where it limits who may embed the frame, never what the frame may load.
  assert.equal(d.get("frame-ancestors"), "'self'");
  assert.doesNotMatch(framePolicy(parseFrameCsp(null)).replace("frame-ancestors 'self'", ""), /'self'|\*/);
});

test("declared origins land in their directives; keywords, paths, schemes and separators are dropped", () => {
  const csp = parseFrameCsp(
    JSON.stringify({
      connectDomains: [
        "https://api.example.org",
        "wss://live.example.org:8443",
        "https://API.example.org",
        "'self'",
        "*",
        "https://x.org; script-src *",
        "javascript:alert(1)",
      ],
      resourceDomains: ["https://*.cdn.example.net", "https://cdn.example.net/path", "data:", "http://127.0.0.1:9000"],
      frameDomains: "https://not-a-list.example",
      baseUriDomains: [42, "https://base.example"],
      other: ["https://ignored.example"],
    }),
  );
  assert.deepEqual(csp, {
    connectDomains: ["https://api.example.org", "wss://live.example.org:8443"],
    resourceDomains: ["https://*.cdn.example.net", "http://127.0.0.1:9000"],
    frameDomains: [],
    baseUriDomains: ["https://base.example"],
  });
  const d = directives(framePolicy(csp));
  assert.equal(d.get("connect-src"), "https://api.example.org wss://live.example.org:8443");
  assert.equal(d.get("script-src"), "'unsafe-inline' https://*.cdn.example.net http://127.0.0.1:9000");
  assert.equal(d.get("font-src"), "data: https://*.cdn.example.net http://127.0.0.1:9000");
  assert.equal(d.get("frame-src"), "'none'");
  assert.equal(d.get("base-uri"), "https://base.example");
  assert.equal(parseFrameCsp(JSON.stringify({ connectDomains: Array.from({ length: 50 }, (_, i) => `https://h${i}.example`) })).connectDomains.length, 32);
  for (const junk of ["not json", "[]", "null", "x".repeat(20_000)]) assert.deepEqual(parseFrameCsp(junk).connectDomains, []);
});

test("frame.html carries the policy its csp query asks for, with its own etag", async (t) => {
  const server = new McpServer("frames");
  server.tool(() => 1, { name: "one", inputSchema: { type: "object" } });
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const plain = await fetch(`${running.url}console/frame.html`);
  await plain.arrayBuffer();
  const query = encodeURIComponent(JSON.stringify({ connectDomains: ["https://api.example.org"] }));
  const wide = await fetch(`${running.url}console/frame.html?csp=${query}`);
  await wide.arrayBuffer();
  assert.match(wide.headers.get("content-security-policy")!, /connect-src https:\/\/api\.example\.org;/);
  assert.match(plain.headers.get("content-security-policy")!, /connect-src 'none';/);
  assert.notEqual(wide.headers.get("etag"), plain.headers.get("etag"));
  const revalidated = await fetch(`${running.url}console/frame.html?csp=${query}`, { headers: { "if-none-match": plain.headers.get("etag")! } });
  assert.equal(revalidated.status, 200);
  await revalidated.arrayBuffer();
});
