// DNS-rebinding and cross-site protection, as a function and over HTTP.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request, type IncomingMessage } from "node:http";
import { hostGuard } from "../../lib/http/host-guard.ts";
import { isLoopbackHost } from "../../lib/http/loopback.ts";
import { hostname, networkInterfaces } from "node:os";
import { McpServer } from "../../lib/index.ts";

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

test("loopback binds check Host and Origin; loopback names of any port pass", () => {
  const guard = hostGuard("127.0.0.1")!;
  for (const host of ["127.0.0.1:8000", "localhost:8000", "LOCALHOST", "[::1]:8000", "127.0.0.2", "app.localhost:1"]) {
    assert.equal(guard(req({ host })), null, host);
  }
  for (const host of ["evil.example.com", "evil.example.com:8000", "127.0.0.1.evil.com", "[::2]:80"]) assert.equal(guard(req({ host })), "host", host);
  assert.equal(guard(req({})), "host", "no Host at all");
  assert.equal(guard(req({ host: "" })), "host", "an empty Host");
  assert.equal(guard(req({ host: "localhost:1" })), null);
  assert.equal(guard(req({ host: "localhost:1" })), null, "remembered");
  assert.equal(guard(req({ host: "evil.example.com" })), "host", "and the memory lets nothing else through");
  assert.equal(guard(req({ host: "localhost", origin: "http://localhost:3000" })), null);
  assert.equal(guard(req({ host: "localhost", origin: "https://127.0.0.1" })), null);
  assert.equal(guard(req({ host: "localhost", origin: "http://[::1]:5173" })), null);
  assert.equal(guard(req({ host: "localhost", origin: "http://evil.example.com" })), "origin");
  assert.equal(guard(req({ host: "localhost", origin: "null" })), "origin");
  assert.equal(guard(req({ host: "localhost", origin: "file://" })), "origin");
  assert.ok(hostGuard("::1") && hostGuard("localhost"));
  assert.equal(isLoopbackHost("10.0.0.1"), false);
});

test("allowed hosts and origins extend the loopback set; X-Forwarded-Host only with trustProxy", () => {
  const guard = hostGuard("127.0.0.1", { allowedHosts: ["tools.example.org", "Other.example:8443"], allowedOrigins: ["https://app.example.org/"] })!;
  assert.equal(guard(req({ host: "tools.example.org:9999" })), null);
  assert.equal(guard(req({ host: "other.example:8443" })), null);
  assert.equal(guard(req({ host: "other.example:80" })), "host");
  assert.equal(guard(req({ host: "localhost", origin: "https://app.example.org" })), null);
  assert.equal(guard(req({ host: "localhost", origin: "https://app.example.org.evil" })), "origin");
  assert.equal(
    guard(req({ host: "localhost", "x-forwarded-host": "evil.example.com" })),
    "host",
    "not believed without trustProxy, but a rebound name in it is refused",
  );
  assert.equal(guard(req({ host: "localhost", "x-forwarded-host": "tools.example.org, evil.example.com" })), "host", "every entry counts");
  assert.equal(guard(req({ host: "evil.example.com", "x-forwarded-host": "localhost" })), "host", "and it never replaces Host");
  assert.equal(guard(req({ host: "localhost", "x-forwarded-host": "tools.example.org" })), null);
  const proxied = hostGuard("127.0.0.1", { allowedHosts: ["proxy.example.org"], trustProxy: true })!;
  assert.equal(proxied(req({ host: "localhost", "x-forwarded-host": "proxy.example.org, inner" })), null);
  assert.equal(proxied(req({ host: "localhost", "x-forwarded-host": "evil.example.com" })), "host");
  assert.equal(hostGuard("127.0.0.1", { allowedOrigins: ["*"] })!(req({ host: "localhost", origin: "https://any.where" })), null);
});

/** This machine's addresses as a Host header names them. */
function ownHosts(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => (a.family === "IPv6" ? `[${a.address}]` : a.address)));
}

test("0.0.0.0 (the hub default) checks Host too: a rebound name is refused, this machine's names pass", () => {
  for (const bind of ["0.0.0.0", "::", null]) {
    const open = hostGuard(bind)!;
    assert.equal(open(req({ host: "evil.example" })), "host", `${bind}: a name rebound to this machine`);
    assert.equal(open(req({ host: "hub.example.org:8000" })), "host", `${bind}: any name not configured`);
    for (const host of [...ownHosts(), hostname(), "0.0.0.0:8000", "localhost"]) assert.equal(open(req({ host: `${host}` })), null, `${bind}: ${host}`);
    assert.equal(open(req({ host: "localhost", origin: "http://localhost:3000" })), null, `${bind}: a loopback Origin`);
    assert.equal(open(req({ host: "localhost", origin: "https://evil.example.com" })), "origin", `${bind}: a foreign Origin`);
  }
  assert.equal(hostGuard("0.0.0.0", { allowedOrigins: ["*"], allowedHosts: ["*"] }), null, '"*" in both turns every check off');
  assert.equal(hostGuard("0.0.0.0", { allowedHosts: ["*"] })!(req({ host: "anything" })), null, '"*" turns the Host check off');
  assert.equal(hostGuard("0.0.0.0", { allowedOrigins: ["*"] })!(req({ host: "evil.example" })), "host", 'but the Origin\'s "*" leaves it on');
  const hosts = hostGuard("0.0.0.0", { allowedHosts: ["hub.example.org"] })!;
  assert.equal(hosts(req({ host: "hub.example.org", origin: "https://evil.example.com" })), "origin");
  assert.equal(hosts(req({ host: "hub.example.org" })), null);
  assert.equal(hosts(req({ host: "evil.example.com" })), "host");
  assert.equal(hosts(req({ host: "localhost:8000" })), null);
  const origins = hostGuard("0.0.0.0", { allowedOrigins: ["https://proxy.hub.example.org"] })!;
  assert.equal(origins(req({ host: "proxy.hub.example.org" })), null, "an allowed origin's host is an allowed Host (a hub's proxy)");
  assert.equal(origins(req({ host: "anything" })), "host");
  assert.equal(origins(req({ host: "localhost", origin: "https://evil.example.com" })), "origin");
  assert.equal(hostGuard("10.1.2.3")!(req({ host: "10.1.2.3:8000" })), null, "the bind address itself");
  assert.equal(hostGuard("2001:db8::5")!(req({ host: "[2001:db8::5]:8000" })), null);
});

function raw(port: number, headers: Record<string, string>, path = "/mcp"): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: "127.0.0.1", port, path, method: "POST", headers: { "content-type": "application/json", ...headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    r.on("error", reject);
    r.end(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    );
  });
}

test("over HTTP: a rebinding Host or foreign Origin gets 403 with a JSON-RPC error; local ones are served", async (t) => {
  const server = new McpServer("guarded");
  const running = await server.listen({ host: "127.0.0.1", port: 0 });
  t.after(() => running.close());
  const evil = await raw(running.port, { host: "evil.example.com", origin: "http://evil.example.com" });
  assert.equal(evil.status, 403);
  assert.deepEqual(JSON.parse(evil.body), { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Forbidden: Host not allowed" } });
  const origin = await raw(running.port, { host: `localhost:${running.port}`, origin: "https://evil.example.com" });
  assert.equal(origin.status, 403);
  assert.match(origin.body, /Origin not allowed/);
  assert.equal((await raw(running.port, { host: `localhost:${running.port}`, origin: `http://localhost:${running.port}` })).status, 200);
  assert.equal((await raw(running.port, { host: `127.0.0.1:${running.port}` })).status, 200);
  assert.equal(server.sessions.size, 2, "refused requests minted no session");
  assert.equal((await raw(running.port, { host: "evil.example.com" }, "/tools/x")).status, 403, "every route is guarded");
});

test("over HTTP: allowedHosts from the server options, overridden by listen options", async (t) => {
  const server = new McpServer("configured", { allowedHosts: ["tools.example.org"] });
  const a = await server.listen({ host: "127.0.0.1", port: 0 });
  t.after(() => a.close());
  assert.equal((await raw(a.port, { host: "tools.example.org" })).status, 200);
  assert.equal((await raw(a.port, { host: "other.example.org" })).status, 403);
  const b = await server.listen({ host: "127.0.0.1", port: 0, allowedHosts: ["other.example.org"] });
  t.after(() => b.close());
  assert.equal((await raw(b.port, { host: "other.example.org" })).status, 200);
  assert.equal((await raw(b.port, { host: "tools.example.org" })).status, 403);
});

function rawGet(port: number, host: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const r = request({ host: "127.0.0.1", port, path, headers: { host, accept: "text/event-stream" } }, (res) => {
      resolve(res.statusCode!);
      res.destroy();
    });
    r.on("error", reject);
    r.end();
  });
}

test("over HTTP: bound to 0.0.0.0, a rebound Host gets 403 on GET /sse and POST /mcp; this machine's addresses are served", async (t) => {
  const server = new McpServer("open");
  const running = await server.listen({ host: "0.0.0.0", port: 0 });
  t.after(() => running.close());
  assert.equal(await rawGet(running.port, `evil.example:${running.port}`, "/sse"), 403, "a rebinding page cannot open the broadcast stream");
  assert.equal((await raw(running.port, { host: `evil.example:${running.port}` })).status, 403);
  assert.equal(server.sessions.size, 0, "the refused requests minted no session");
  for (const host of [...ownHosts(), hostname()]) {
    assert.equal((await raw(running.port, { host: `${host}:${running.port}` })).status, 200, host);
  }
  assert.equal(await rawGet(running.port, `127.0.0.1:${running.port}`, "/sse"), 200);
  const page = await raw(running.port, { host: `127.0.0.1:${running.port}`, origin: "https://evil.example.com", "content-type": "text/plain" });
  assert.equal(page.status, 403, "a web page cannot POST text/plain to a local server");
  const allowed = new McpServer("hub", { allowedOrigins: ["https://hub.example.org"], allowedHosts: ["tools.example.org"] });
  const hub = await allowed.listen({ host: "0.0.0.0", port: 0 });
  t.after(() => hub.close());
  assert.equal((await raw(hub.port, { host: "hub.example.org", origin: "https://hub.example.org" })).status, 200);
  assert.equal((await raw(hub.port, { host: "tools.example.org" })).status, 200);
  assert.equal((await raw(hub.port, { host: "evil.example" })).status, 403);
});
