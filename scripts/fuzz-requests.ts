// The requests scripts/fuzz.ts sends: a valid request for one of the front doors, then zero
// or more kinds of damage drawn from a seeded generator, so a run can be repeated exactly.
export type FuzzTarget = "tool-server" | "gw-tool-mcp" | "gw-tool-sse" | "gw-tool-rest" | "gw-connector" | "oauth";

export interface FuzzRequest {
  target: FuzzTarget;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export type Random = () => number;

/** mulberry32: small, seeded, good enough to spread damage evenly. */
export function makeRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: Random, list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;

const METHODS = [
  "initialize",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "prompts/list",
  "prompts/get",
  "tasks/get",
  "tasks/result",
  "tasks/list",
  "tasks/cancel",
  "logging/setLevel",
  "completion/complete",
  "ping",
  "skills/list",
  "skills/get",
  "notifications/initialized",
  "notifications/cancelled",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "prototype",
  "tools/__proto__",
  "",
  "a".repeat(5000),
  "tools/call\u0000",
  "résumé/ünïcode",
];

const VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", "", "__proto__", "2026-07-28\r\nx: y"];
const TOOL_NAMES = [
  "add",
  "divide",
  "projectile",
  "slow_count",
  "get_job_result",
  "mcpdemo_add",
  "mcpdemo_get_job_result",
  "__proto__",
  "constructor",
  "",
  "nope",
];
const URIS = ["ui://demo/plot", "ui://mcpdemo/demo/plot", "file:///etc/passwd", "http://127.0.0.1/", "__proto__", "", "demo://x/../../y", "a".repeat(3000)];

function weirdValue(r: Random, depth = 0): unknown {
  switch (Math.floor(r() * 12)) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor(r() * 2 ** 53) * (r() < 0.5 ? -1 : 1);
    case 3:
      return pick(r, [Number.MAX_VALUE, -0, 1e308, 0.1, 2 ** 64]);
    case 4:
      return pick(r, ["", "x", "\u0000", "\ud800", "%00", "../..", "<script>", "{{x}}", "a".repeat(Math.floor(r() * 20000))]);
    case 5:
      return depth > 3 ? [] : Array.from({ length: Math.floor(r() * 4) }, () => weirdValue(r, depth + 1));
    case 6:
      return depth > 3
        ? {}
        : Object.fromEntries(
            Array.from({ length: Math.floor(r() * 4) }, () => [
              pick(r, ["__proto__", "constructor", "a", "b", "x", "_meta", "task", "progressToken"]),
              weirdValue(r, depth + 1),
            ]),
          );
    case 7:
      return pick(r, METHODS);
    case 8:
      return pick(r, TOOL_NAMES);
    case 9:
      return pick(r, URIS);
    default:
      return Math.floor(r() * 100);
  }
}

function params(r: Random, method: string): Record<string, unknown> {
  switch (method) {
    case "initialize":
      return { protocolVersion: pick(r, VERSIONS), capabilities: r() < 0.5 ? {} : weirdValue(r), clientInfo: { name: "fuzz", version: "1" } };
    case "tools/call":
      return {
        name: pick(r, TOOL_NAMES),
        arguments: r() < 0.7 ? { a: Math.floor(r() * 9), b: Math.floor(r() * 9), x: weirdValue(r) } : weirdValue(r),
        ...(r() < 0.2 ? { task: r() < 0.5 ? { ttl: 1000 } : weirdValue(r) } : {}),
        ...(r() < 0.2 ? { _meta: r() < 0.5 ? { progressToken: weirdValue(r) } : weirdValue(r) } : {}),
      };
    case "resources/read":
      return { uri: pick(r, URIS) };
    case "prompts/get":
      return { name: weirdValue(r), arguments: weirdValue(r) };
    case "tasks/get":
    case "tasks/result":
    case "tasks/cancel":
      return { taskId: r() < 0.5 ? "00000000-0000-4000-8000-000000000000" : weirdValue(r) };
    default:
      return r() < 0.5 ? {} : { cursor: weirdValue(r), level: weirdValue(r), _meta: weirdValue(r) };
  }
}

function jsonRpc(r: Random): unknown {
  const method = pick(r, METHODS);
  const message: Record<string, unknown> = { jsonrpc: r() < 0.9 ? "2.0" : weirdValue(r), method, params: r() < 0.9 ? params(r, method) : weirdValue(r) };
  if (r() < 0.9) message.id = r() < 0.8 ? Math.floor(r() * 1000) : weirdValue(r);
  if (r() < 0.05) delete message.method;
  if (r() < 0.1) return Array.from({ length: Math.floor(r() * 5) }, () => (r() < 0.8 ? { ...message, id: Math.floor(r() * 1e6) } : weirdValue(r)));
  if (r() < 0.05) return weirdValue(r);
  return message;
}

function damageBytes(r: Random, body: Buffer): Buffer {
  switch (Math.floor(r() * 10)) {
    case 0:
      return body.subarray(0, Math.floor(r() * body.length));
    case 1: {
      const copy = Buffer.from(body);
      for (let i = 0; i < 3 && copy.length > 0; i++) copy[Math.floor(r() * copy.length)] = Math.floor(r() * 256);
      return copy;
    }
    case 2:
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    case 3:
      return Buffer.concat([body, Buffer.from([0xff, 0xfe, 0x00])]);
    case 4:
      return Buffer.from(`${"[".repeat(5000)}${"]".repeat(5000)}`);
    case 5:
      return Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${'{"a":'.repeat(2000)}1${"}".repeat(2000)}}`);
    default:
      return body;
  }
}

const ACCEPTS = ["application/json, text/event-stream", "application/json", "text/event-stream", "*/*", "", "text/html"];
const TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "application/json; charset=utf-16",
  "",
];

function mcpHeaders(r: Random, token: string, bearer: boolean): Record<string, string> {
  const h: Record<string, string> = {};
  const accept = pick(r, ACCEPTS);
  if (accept) h.accept = accept;
  const type = r() < 0.85 ? "application/json" : pick(r, TYPES);
  if (type) h["content-type"] = type;
  if (bearer) h.authorization = r() < 0.9 ? `Bearer ${token}` : pick(r, ["Bearer ", "Bearer x", `Basic ${token}`, `Bearer ${token}x`, "Bearer \u00ff"]);
  if (r() < 0.5) h["mcp-protocol-version"] = pick(r, VERSIONS).replace(/[\r\n]/g, "");
  if (r() < 0.3) h["mcp-session-id"] = pick(r, ["", "x", "a".repeat(300), "00000000000000000000000000000000", "__proto__", "..%2f"]);
  if (r() < 0.1) h["last-event-id"] = pick(r, ["", "1", "x:1", "-1", "9".repeat(40)]);
  if (r() < 0.1) h.origin = pick(r, ["http://evil.example", "null", "http://127.0.0.1"]);
  if (r() < 0.1) h.traceparent = pick(r, ["00-" + "0".repeat(32) + "-" + "0".repeat(16) + "-01", "garbage", "00-zz-zz-zz"]);
  if (r() < 0.1) h.cookie = pick(r, ["a=b", "hubmcp_session=x; __proto__=y", "=", ";;;"]);
  return h;
}

/** A lone surrogate cannot be percent-encoded: send a malformed escape in its place, which is damage too. */
function enc(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return "%ZZ%d8";
  }
}

const GW_TOOLS = ["/api/mcp/mcpdemo", "/api/mcp/mcpshared"];
const HTTP_METHODS = ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"];

function oauthRequest(r: Random, token: string): FuzzRequest {
  const path = pick(r, [
    "/authorize/register",
    "/developer/oauth/authorize",
    "/developer/oauth/token",
    "/developer/oauth/revoke",
    "/developer/oauth/login",
    "/developer/oauth/consent",
    "/.well-known/oauth-authorization-server",
    "/.well-known/oauth-authorization-server/authorize",
    "/.well-known/oauth-protected-resource/api/mcp/mcpdemo/mcp",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/openid-configuration",
  ]);
  const fields = (): string =>
    Array.from({ length: Math.floor(r() * 8) }, () =>
      [
        enc(
          pick(r, [
            "grant_type",
            "code",
            "redirect_uri",
            "client_id",
            "code_verifier",
            "refresh_token",
            "token",
            "response_type",
            "code_challenge",
            "code_challenge_method",
            "state",
            "scope",
            "resource",
            "csrf",
            "username",
            "password",
            "__proto__",
          ]),
        ),
        enc(String(weirdValue(r))),
      ].join("="),
    ).join("&");
  const method = r() < 0.8 ? (r() < 0.5 ? "POST" : "GET") : pick(r, HTTP_METHODS);
  const headers: Record<string, string> = {};
  let body: Buffer | undefined;
  let query = "";
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") query = `?${fields()}`;
  else if (path === "/authorize/register") {
    headers["content-type"] = pick(r, ["application/json", "text/plain", ""]);
    body = Buffer.from(
      JSON.stringify(
        r() < 0.6
          ? {
              redirect_uris: r() < 0.5 ? ["http://127.0.0.1:9/cb"] : weirdValue(r),
              client_name: weirdValue(r),
              token_endpoint_auth_method: pick(r, ["none", "client_secret_post", "x", 1]),
              grant_types: weirdValue(r),
            }
          : weirdValue(r),
      ),
    );
    if (r() < 0.3) body = damageBytes(r, body);
  } else {
    headers["content-type"] = r() < 0.85 ? "application/x-www-form-urlencoded" : pick(r, TYPES);
    body = Buffer.from(fields());
  }
  if (r() < 0.2) headers.authorization = pick(r, [`Bearer ${token}`, "Basic eDp5", "Basic !!!", "Basic " + Buffer.from("a:").toString("base64")]);
  if (r() < 0.1) headers.cookie = pick(r, ["hubmcp_oauth=x", "a=b; a=c", "=;"]);
  if (r() < 0.1) headers.origin = "http://evil.example";
  return { target: "oauth", method, path: `${path}${query}`, headers, body };
}

export function damagedRequest(r: Random, token: string): FuzzRequest {
  const roll = r();
  if (roll < 0.15) return oauthRequest(r, token);
  const target: FuzzTarget =
    roll < 0.35 ? "tool-server" : roll < 0.6 ? "gw-tool-mcp" : roll < 0.7 ? "gw-tool-sse" : roll < 0.8 ? "gw-tool-rest" : "gw-connector";
  const bearer = target !== "tool-server" && r() < 0.95;
  const headers = mcpHeaders(r, token, bearer);
  const GW_TOOL = pick(r, GW_TOOLS);
  let method = r() < 0.85 ? "POST" : pick(r, HTTP_METHODS);
  let path: string;
  let body: Buffer | undefined = Buffer.from(JSON.stringify(jsonRpc(r)));
  switch (target) {
    case "tool-server":
      path = pick(r, [
        "/mcp",
        "/mcp",
        "/",
        "/messages",
        "/sse",
        "/openapi.json",
        "/tools/add",
        "/tools/__proto__",
        "/tools/get_job_result",
        "/.well-known/mcp.json",
        "/console",
        "/mcp?session_id=x",
      ]);
      if (path.startsWith("/tools/")) body = Buffer.from(JSON.stringify(r() < 0.6 ? { a: weirdValue(r), b: 2 } : weirdValue(r)));
      break;
    case "gw-tool-mcp":
      path = `${GW_TOOL}/mcp${r() < 0.1 ? pick(r, ["?revision=default", "?revision=__proto__", "?revision=", "?session_id=x"]) : ""}`;
      break;
    case "gw-tool-sse":
      path = pick(r, [`${GW_TOOL}/sse`, `${GW_TOOL}/messages?session_id=x`, `${GW_TOOL}/?session_id=`, `${GW_TOOL}/messages`]);
      if (path.endsWith("/sse") && r() < 0.7) method = "GET";
      break;
    case "gw-tool-rest":
      path = pick(r, [
        `${GW_TOOL}/tools/add`,
        `${GW_TOOL}/tools/divide`,
        `${GW_TOOL}/tools/__proto__`,
        `${GW_TOOL}/tools/get_job_result`,
        `${GW_TOOL}/openapi.json`,
        `${GW_TOOL}/`,
        "/api/mcp/__proto__/mcp",
        "/api/mcp/constructor/tools/add",
        "/api/mcp/%2e%2e/mcp",
      ]);
      body = Buffer.from(JSON.stringify(r() < 0.6 ? { a: weirdValue(r), b: 2 } : weirdValue(r)));
      break;
    default:
      path = pick(r, ["/mcp", "/mcp", "/mcp?session_id=x", "/"]);
  }
  if (r() < 0.25) body = damageBytes(r, body);
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") body = undefined;
  return { target, method, path, headers, body };
}
