import { test } from "node:test";
import { request } from "node:http";
import assert from "node:assert/strict";
import { hubPorts, startHub } from "../../lib/launcher/hub-mode.ts";
import { McpServer } from "../../lib/index.ts";

test("hub ports are 8000 and 8001 unless HUBMCP_PROXY_PORT / HUBMCP_SERVER_PORT say otherwise", () => {
  assert.deepEqual(hubPorts({}), { proxyPort: 8000, serverPort: 8001 });
  assert.deepEqual(hubPorts({ HUBMCP_PROXY_PORT: "0", HUBMCP_SERVER_PORT: "9001" }), { proxyPort: 0, serverPort: 9001 });
  assert.deepEqual(hubPorts({ HUBMCP_PROXY_PORT: "" }), { proxyPort: 8000, serverPort: 8001 });
  assert.equal(hubPorts({ HUBMCP_PROXY_PORT: "x" }), "HUBMCP_PROXY_PORT must be a port number (0-65535)");
  assert.equal(hubPorts({ HUBMCP_SERVER_PORT: "99999" }), "HUBMCP_SERVER_PORT must be a port number (0-65535)");
});

test("on a hub the server lets in browser pages served through the proxy's origin, and no other origin", async (t) => {
  const pathPrefix = "/weber/s1/cookie/5";
  const run = await startHub({
    app: new McpServer("hub-origin"),
    hub: { session: "s1", sessionDir: "/nonexistent", pathPrefix, proxyUrl: `https://proxy.hub.example${pathPrefix}/` },
    host: "127.0.0.1",
    proxy: "none",
    ports: { proxyPort: 0, serverPort: 0 },
    debug: false,
    env: {},
    onProxyOutput: () => {},
  });
  t.after(() => run.server.close());
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
  const from = async (origin: string) => {
    const res = await fetch(`${run.server.url}mcp`, { method: "POST", headers: { "content-type": "application/json", origin }, body: JSON.stringify(init) });
    await res.arrayBuffer();
    return res.status;
  };
  assert.equal(await from("https://proxy.hub.example"), 200);
  assert.equal(await from("https://evil.example.com"), 403);
});

function postWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const r = request(
      `${url}mcp`,
      { method: "POST", headers: { host, "content-type": "application/json", accept: "application/json, text/event-stream" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      },
    );
    r.on("error", reject);
    r.end(init);
  });
}

test("on a hub bound to 0.0.0.0 the hub's proxy host is served, with or without the built-in proxy; a rebound Host is not", async (t) => {
  for (const proxy of ["none", "builtin"] as const) {
    const pathPrefix = "/weber/s2/cookie/6";
    const run = await startHub({
      app: new McpServer("hub-host"),
      hub: { session: "s2", sessionDir: "/nonexistent", pathPrefix, proxyUrl: `https://proxy.hub.example${pathPrefix}/` },
      host: "0.0.0.0",
      proxy,
      ports: { proxyPort: 0, serverPort: 0 },
      debug: false,
      env: {},
      onProxyOutput: () => {},
    });
    t.after(async () => {
      await run.stopProxy();
      await run.server.close();
    });
    const front = proxy === "none" ? run.server.url : run.notes[0]!.replace(/.* on port (\d+)$/, `http://127.0.0.1:$1${pathPrefix}/`);
    assert.equal(await postWithHost(front, "proxy.hub.example"), 200, `${proxy}: the front proxy's Host`);
    assert.equal(await postWithHost(front, "evil.example"), 403, `${proxy}: a rebound Host`);
  }
});
