// The routing headers of MCP 2026-07-28 (Streamable HTTP, "Request Metadata"): `Mcp-Method`
// and `Mcp-Name` mirror the body so intermediaries can route without parsing it, and tool
// parameters annotated `x-mcp-header` are mirrored as `Mcp-Param-{Name}`. A server that reads
// the body must check that both agree; any disagreement is -32020 with HTTP 400.
import { isRecord, ownValue } from "../../util/guards.ts";
import { headerMismatch, type StatelessErrorBody } from "./errors.ts";

/** Header values by lower-case name, as node:http gives them. */
export type HeaderBag = Record<string, string | string[] | undefined>;

export type HeaderCheck = { ok: true } | { ok: false; refusal: "header-mismatch"; error: StatelessErrorBody };

const OK: HeaderCheck = { ok: true };
const mismatch = (message: string): HeaderCheck => ({ ok: false, refusal: "header-mismatch", error: headerMismatch(message) });

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** RFC 9110 field-value characters: visible ASCII, space and tab. */
const FIELD_VALUE = /^[\x20-\x7e\t]*$/;
/** RFC 9110 token, the only shape an `x-mcp-header` name may take. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A header's single value, trimmed of optional whitespace; undefined when absent or repeated. */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const raw = headers[name.toLowerCase()];
  if (raw === undefined || Array.isArray(raw)) return undefined;
  return raw.replace(/^[ \t]+|[ \t]+$/g, "");
}

/**
 * Decodes a mirrored value: `=?base64?…?=` is strict Base64 of UTF-8 (bad padding or
 * alphabet → null, i.e. invalid); anything else is literal. Control characters → null.
 */
export function decodeHeaderValue(value: string): string | null {
  if (!FIELD_VALUE.test(value)) return null;
  const wrapped = SENTINEL.exec(value);
  if (!wrapped) return value;
  const encoded = wrapped[1] ?? "";
  if (!BASE64.test(encoded)) return null;
  const bytes = Buffer.from(encoded, "base64");
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  // Reject a payload that was not valid UTF-8 rather than compare replacement characters.
  return Buffer.from(text, "utf8").equals(bytes) ? text : null;
}

/** The body field `Mcp-Name` mirrors for a method, or undefined when the method has none. */
export function nameFieldOf(method: string): "name" | "uri" | "taskId" | undefined {
  switch (method) {
    case "tools/call":
    case "prompts/get":
      return "name";
    case "resources/read":
      return "uri";
    case "tasks/get":
    case "tasks/update":
    case "tasks/cancel":
      return "taskId";
    default:
      return undefined;
  }
}

/**
 * Checks `Mcp-Method` against the body method (case-sensitive, whitespace-trimmed) and, for
 * methods with a name-shaped field, `Mcp-Name` against it after decoding the sentinel form.
 */
export function checkStandardHeaders(headers: HeaderBag, method: string, params: Record<string, unknown> | undefined): HeaderCheck {
  const sentMethod = headerValue(headers, "mcp-method");
  if (sentMethod === undefined) return mismatch("Mcp-Method header is missing");
  if (sentMethod !== method) return mismatch("Mcp-Method header does not match the body method");
  const field = nameFieldOf(method);
  const bodyName = field ? params?.[field] : undefined;
  if (typeof bodyName !== "string") return OK;
  const sentName = headerValue(headers, "mcp-name");
  if (sentName === undefined) return mismatch("Mcp-Name header is missing");
  const decoded = decodeHeaderValue(sentName);
  if (decoded === null) return mismatch("Mcp-Name header value is malformed");
  return decoded === bodyName ? OK : mismatch(`Mcp-Name header does not match the body ${field}`);
}

/** One `x-mcp-header` annotation: where the value lives in the arguments and its header name. */
export interface ParamHeader {
  header: string;
  path: string[];
  type: "string" | "integer" | "boolean";
}

/**
 * The `x-mcp-header` annotations of a tool's inputSchema, found only along chains of
 * `properties` keys (the revision forbids them anywhere else). Throws a TypeError naming the
 * first violation, so a bad tool definition fails at registration, not on a call.
 */
export function paramHeadersOf(inputSchema: unknown): ParamHeader[] {
  const found: ParamHeader[] = [];
  const seen = new Set<string>();
  const walk = (schema: Record<string, unknown>, path: string[]): void => {
    const props = schema.properties;
    if (!isRecord(props)) return;
    for (const [key, sub] of Object.entries(props)) {
      if (!isRecord(sub)) continue;
      const name = sub["x-mcp-header"];
      if (name !== undefined) {
        if (typeof name !== "string" || !TOKEN.test(name)) throw new TypeError(`x-mcp-header on ${[...path, key].join(".")} must be an HTTP token`);
        if (seen.has(name.toLowerCase())) throw new TypeError(`x-mcp-header ${name} is used twice`);
        const type = sub.type;
        if (type !== "string" && type !== "integer" && type !== "boolean") {
          throw new TypeError(`x-mcp-header on ${[...path, key].join(".")} needs type string, integer or boolean`);
        }
        seen.add(name.toLowerCase());
        found.push({ header: name, path: [...path, key], type });
      }
      walk(sub, [...path, key]);
    }
  };
  if (isRecord(inputSchema)) walk(inputSchema, []);
  return found;
}

function valueAt(args: unknown, path: string[]): unknown {
  let at: unknown = args;
  for (const key of path) {
    if (!isRecord(at)) return undefined;
    at = ownValue(at, key);
  }
  return at;
}

function matches(type: ParamHeader["type"], sent: string, body: unknown): boolean {
  if (type === "string") return sent === body;
  if (type === "boolean") return sent === String(body);
  // Integers compare numerically: "42.0" and 42 agree.
  return typeof body === "number" && sent.trim() !== "" && Number(sent) === body;
}

/**
 * Checks every `Mcp-Param-{Name}` the tool declares against the call's arguments: a value
 * in the body needs its header, and the decoded header must equal it. Absent or null body
 * values expect no header; a stray recognised header with no body value is refused too.
 */
export function checkParamHeaders(headers: HeaderBag, declared: readonly ParamHeader[], args: unknown): HeaderCheck {
  for (const param of declared) {
    const body = valueAt(args, param.path);
    const raw = headers[`mcp-param-${param.header.toLowerCase()}`];
    if (Array.isArray(raw)) return mismatch(`Mcp-Param-${param.header} is repeated`);
    const sent = raw === undefined ? undefined : headerValue(headers, `mcp-param-${param.header}`);
    if (body === undefined || body === null) {
      if (sent !== undefined) return mismatch(`Mcp-Param-${param.header} has no value in the body`);
      continue;
    }
    if (sent === undefined) return mismatch(`Mcp-Param-${param.header} header is missing`);
    const decoded = decodeHeaderValue(sent);
    if (decoded === null) return mismatch(`Mcp-Param-${param.header} header value is malformed`);
    if (!matches(param.type, decoded, body)) return mismatch(`Mcp-Param-${param.header} header does not match the body`);
  }
  return OK;
}

/** How a client (or the gateway relaying one) encodes a value for `Mcp-Name`/`Mcp-Param-*`. */
export function encodeHeaderValue(value: string | number | boolean): string {
  const text = String(value);
  const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(text) && !SENTINEL.test(text);
  return plain ? text : `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;
}
