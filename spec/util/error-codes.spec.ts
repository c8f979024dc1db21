// One error model (lib/util/errors.ts): every error class of lib/ carries a `code` of the
// HUBMCP_* form, read here from the source so a new class cannot drift; every code a failure is
// answered with is declared once there with its status and wire form, pinned below; and no
// other lib/ file holds a literal JSON-RPC error number, an error-to-status table or a JSON-RPC
// error class of its own. The allow-list holds the classes whose `code` is a wire code by
// definition, each with its reason.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ErrorCode,
  isJsonRpcError,
  JsonRpcError,
  OAUTH_ERRORS,
  oauthErrorOf,
  REFUSAL_STATUS,
  WIRE_ERRORS,
  WIRE_OF,
  wireHeaders,
  wireStatus,
} from "../../lib/util/errors.ts";

const LIB = fileURLToPath(new URL("../../lib/", import.meta.url));
const HUBMCP_CODE = /^HUBMCP_[A-Z0-9]+(?:_[A-Z0-9]+)*$/;

/** Classes whose `code` is not ours to name. */
const ALLOWED: Record<string, string> = {
  JsonRpcError: "public API: `code` is the JSON-RPC error code the client receives (numeric, JSON-RPC 2.0 section 5.1)",
  RpcError: "the browser console's client: mirrors the JSON-RPC error object a server answered",
};

interface ErrorClass {
  name: string;
  file: string;
  /** The codes its `code` may take; null when it declares none. */
  codes: string[] | null;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|js|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The text between the class's braces. */
function bodyAt(text: string, from: number): string {
  const open = text.indexOf("{", from);
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

const literals = (typeText: string): string[] => Array.from(typeText.matchAll(/"([^"]*)"/g), (m) => m[1]!);

/** The codes a `readonly code` declaration allows: its initialiser, its literal union, or the union a type alias in the same file names. */
function declaredCodes(body: string, fileText: string): string[] | null {
  const decl = /readonly code\s*(?::\s*([^=;,)]+?))?\s*(?:=\s*("[^"]*"))?\s*[;,)]/.exec(body);
  if (!decl) return null;
  if (decl[2] !== undefined) return literals(decl[2]);
  const type = (decl[1] ?? "").trim();
  if (/^\w+$/.test(type)) {
    const alias = new RegExp(`type ${type}\\s*=([^;]*);`).exec(fileText);
    return alias ? literals(alias[1]!) : [type];
  }
  return literals(type).length > 0 ? literals(type) : [type];
}

function errorClasses(): ErrorClass[] {
  return sources(LIB).flatMap((path) => {
    const text = readFileSync(path, "utf8");
    return Array.from(text.matchAll(/class\s+(\w+)\s+extends\s+(\w*Error)\b/g), (m) => ({
      name: m[1]!,
      file: relative(LIB, path),
      codes: declaredCodes(bodyAt(text, m.index + m[0].length), text),
    }));
  });
}

test("the scan finds the error classes (a broken scan would pass everything)", () => {
  const names = errorClasses().map((c) => c.name);
  for (const known of ["RegistrationError", "SlurmError", "GatewayError", "ClientRequestError", "StoreConfigError", "JsonRpcError"])
    assert.ok(names.includes(known), known);
  assert.ok(names.length >= 20, `only ${names.length} error classes found`);
});

test("every error class of lib has a HUBMCP_* code, or is allow-listed with a reason", () => {
  const wrong = errorClasses()
    .filter((c) => !(c.name in ALLOWED))
    .filter((c) => c.codes === null || c.codes.length === 0 || !c.codes.every((code) => HUBMCP_CODE.test(code)))
    .map((c) => `${c.file} ${c.name}: ${c.codes === null ? "no `readonly code`" : c.codes.join(" | ")}`);
  assert.deepEqual(wrong, []);
});

test("no two error classes share a code, and the allow-list names only classes that exist", () => {
  const classes = errorClasses();
  const owner = new Map<string, string>();
  for (const c of classes) {
    if (c.name in ALLOWED) continue;
    for (const code of c.codes ?? []) {
      assert.equal(owner.get(code) ?? c.name, c.name, `${code} is the code of both ${owner.get(code)} and ${c.name}`);
      owner.set(code, c.name);
    }
  }
  for (const name of Object.keys(ALLOWED))
    assert.ok(
      classes.some((c) => c.name === name),
      `stale allow-list entry ${name}`,
    );
});

test("no two classes of lib share a name (two LaunchErrors told nothing apart)", () => {
  const seen = new Map<string, string>();
  for (const path of sources(LIB)) {
    for (const m of readFileSync(path, "utf8").matchAll(/^\s*(?:export\s+)?(?:abstract\s+)?class\s+(\w+)/gm)) {
      const file = relative(LIB, path);
      assert.equal(seen.get(m[1]!) ?? file, file, `class ${m[1]} is defined in ${seen.get(m[1]!)} and ${file}`);
      seen.set(m[1]!, file);
    }
  }
});

/** The errors module(s): the only files that may declare codes, statuses and JSON-RPC numbers. */
const ERRORS_MODULES = new Set(["util/errors.ts"]);

/** The browser console's scripts are served to the page as they are and cannot import lib/util. */
const BROWSER = (file: string): boolean => file.startsWith("console/client/");

/** Source without its comments, so a comment may name a code (`-32021`) as documentation. */
const code = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");

const libFiles = (): { file: string; text: string }[] => sources(LIB).map((path) => ({ file: relative(LIB, path), text: code(readFileSync(path, "utf8")) }));

test("every wire code is declared once with its status and its OAuth form", () => {
  const declared = Object.fromEntries(Object.entries(WIRE_ERRORS).map(([k, v]) => [k, [v.status, "oauth" in v ? v.oauth : null]]));
  assert.deepEqual(declared, {
    bad_path: [400, null],
    bad_tool: [400, null],
    console_link_invalid: [400, null],
    no_session: [400, null],
    session_required: [400, null],
    body_not_json: [400, "invalid_request"],
    body_aborted: [400, "invalid_request"],
    unauthorized: [401, null],
    forbidden: [403, null],
    host_not_allowed: [403, null],
    not_found: [404, "not_found"],
    unknown_revision: [404, null],
    unknown_session: [404, null],
    unknown_tool: [404, null],
    method_not_allowed: [405, "invalid_request"],
    not_acceptable: [406, null],
    conflict: [409, null],
    console_link_expired: [410, null],
    console_link_used: [410, null],
    body_too_large: [413, "invalid_request"],
    rate_limited: [429, "too_many_requests"],
    too_many_running: [429, null],
    too_many_user_sessions: [429, null],
    client_gone: [499, null],
    internal_error: [500, "server_error"],
    no_upstream_session: [502, null],
    tool_session_crashed: [502, null],
    tool_session_failed: [502, null],
    upstream_refused: [502, null],
    upstream_too_large: [502, null],
    upstream_unavailable: [502, null],
    gateway_busy: [503, null],
    shutting_down: [503, null],
    store_full: [503, "temporarily_unavailable"],
    store_unavailable: [503, "temporarily_unavailable"],
    too_many_sessions: [503, null],
    tool_session_not_ready: [504, null],
    upstream_timeout: [504, null],
  });
  for (const [wire, d] of Object.entries(WIRE_ERRORS)) {
    assert.match(wire, /^[a-z]+(?:_[a-z]+)*$/, `${wire}: the wire keeps lowercase snake_case codes`);
    assert.equal(wireStatus(wire as keyof typeof WIRE_ERRORS), d.status);
  }
  assert.equal(oauthErrorOf("store_full"), "temporarily_unavailable");
  assert.deepEqual(
    { ...OAUTH_ERRORS },
    {
      invalid_request: 400,
      invalid_client: 401,
      invalid_grant: 400,
      unsupported_grant_type: 400,
      invalid_target: 400,
      invalid_client_metadata: 400,
      invalid_redirect_uri: 400,
      invalid_token: 401,
      insufficient_scope: 403,
      temporarily_unavailable: 503,
    },
    "RFC 6749 section 5.2, RFC 8707, RFC 7591 section 3.2.2, RFC 6750 section 3.1",
  );
  assert.deepEqual(wireHeaders("body_too_large"), { connection: "close" }, "a body cut short leaves the connection unusable");
  assert.deepEqual(wireHeaders("body_not_json"), {});
});

test("the classes answered as themselves name their wire code, and refusals their status", () => {
  assert.deepEqual(WIRE_OF, {
    HUBMCP_BODY_TOO_LARGE: "body_too_large",
    HUBMCP_BODY_NOT_JSON: "body_not_json",
    HUBMCP_BODY_ABORTED: "body_aborted",
    HUBMCP_STORE_FULL: "store_full",
    HUBMCP_STORE_UNAVAILABLE: "store_unavailable",
  });
  const declaredByClasses = new Set(errorClasses().flatMap((c) => c.codes ?? []));
  for (const js of Object.keys(WIRE_OF)) assert.ok(declaredByClasses.has(js), `${js} is no error class's code`);
  assert.deepEqual(REFUSAL_STATUS, {
    malformed: 400,
    "unsupported-version": 400,
    "bad-envelope": 400,
    "header-mismatch": 400,
    "missing-capability": 400,
    "unknown-method": 404,
    "internal-error": 500,
  });
});

test("the JSON-RPC codes are JSON-RPC's, MCP's and the 2026-07-28 revision's, each once", () => {
  assert.deepEqual(
    { ...ErrorCode },
    {
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      ResourceNotFound: -32002,
      NotAvailable: -32003,
      SessionNotFound: -32001,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022,
    },
  );
  assert.equal(new Set(Object.values(ErrorCode)).size, Object.values(ErrorCode).length);
});

test("one JSON-RPC error class: its wire form, and an upstream's error passed on unchanged", () => {
  assert.deepEqual(new JsonRpcError(ErrorCode.InvalidParams, "Unknown tool").toBody(), { code: -32602, message: "Unknown tool" });
  assert.deepEqual(new JsonRpcError(-32000, "Busy", { retry: 1 }).toBody(), { code: -32000, message: "Busy", data: { retry: 1 } });
  const passed = JsonRpcError.from({ code: -32001, message: "Session not found", data: null });
  assert.ok(isJsonRpcError(passed));
  assert.deepEqual(passed.toBody(), { code: -32001, message: "Session not found", data: null });
  assert.deepEqual(JsonRpcError.from("garbage").toBody(), { code: -32603, message: "Error" }, "a malformed error object becomes an internal error");
  assert.deepEqual(JsonRpcError.from({ code: "x", message: 3 }).toBody(), { code: -32603, message: "Error" });
  const classes = errorClasses().filter((c) => /Rpc\w*Error$/.test(c.name) && !(c.name in ALLOWED));
  assert.deepEqual(classes, [], "a JSON-RPC error is a JsonRpcError");
});

test("no lib/ file outside the errors module holds a literal JSON-RPC error number", () => {
  const found = libFiles()
    .filter(({ file }) => !ERRORS_MODULES.has(file) && !BROWSER(file))
    .flatMap(({ file, text }) => Array.from(text.matchAll(/-32[0-9]{3}\b/g), (m) => `${file}: ${m[0]}`));
  assert.deepEqual(found, []);
});

test("no lib/ file outside the errors module maps errors to statuses itself", () => {
  // A table entry (`name: 404,` or `name: { status: 404`), or a status written beside a wire code.
  const entry = /^\s*["']?[\w-]+["']?\s*:\s*(?:\{\s*status:\s*)?[45]\d\d\b\s*[,}]?\s*$/gm;
  const beside = /status:\s*[45]\d\d\s*,\s*(?:code|error):\s*"[a-z_]+"|\b[45]\d\d,\s*"[a-z_]+"/g;
  const found = libFiles()
    .filter(({ file }) => !ERRORS_MODULES.has(file) && !BROWSER(file))
    .flatMap(({ file, text }) => [...text.matchAll(entry), ...text.matchAll(beside)].map((m) => `${file}: ${m[0].trim()}`));
  assert.deepEqual(found, []);
  for (const file of ["http/status.ts", "gateway/contracts/respond.ts", "gateway/oauth/server.ts"]) {
    const text = libFiles().find((f) => f.file === file)!.text;
    assert.doesNotMatch(text, /\b[45]\d\d\b/, `${file} reads its statuses from the declarations`);
  }
});

test("the scans see what they look for (a broken scan would pass everything)", () => {
  assert.match(code("send(res, { code: -32700 }); // -32021"), /-32700/);
  assert.doesNotMatch(code("// refused with -32021\n/* -32602 */ x"), /-32\d{3}/);
  assert.equal(code('const u = "http://x";'), 'const u = "http://x";');
  assert.match('return refuse(400, "invalid_grant", why);', /\b[45]\d\d,\s*"[a-z_]+"/);
});
