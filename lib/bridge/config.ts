// The bridge's configuration, read only from the environment (desktop hosts pass env, not
// flags): HUB_TOKEN (required), HUB_API, HUB_TOOLS (`*`: the gateway's `/mcp`, every tool
// the person may use), HUB_ALLOW_HTTP (`1`: plain http:// to another host). Pure: the CLI decides what is printed.
import { isLoopbackHost } from "../http/loopback.ts";

export const DEFAULT_HUB_API = "http://127.0.0.1:8080";
export const DEFAULT_HUB_TOOLS = "mcpdemo";

/** One configured tool and the upstream endpoint that serves it. */
export interface ToolTarget {
  /** Tool name as published on the hub. */
  readonly tool: string;
  /** `name@revision` selects a revision; null means the gateway's default. */
  readonly revision: string | null;
  /** Prefix of its names when several tools are bridged: the tool name, or `tool_revision` when a tool appears twice. */
  readonly label: string;
  /** `{HUB_API}/api/mcp/{tool}/mcp`, with `?revision=` when one is chosen. */
  readonly endpoint: string;
}

export interface BridgeConfig {
  readonly token: string;
  /** Base URL without a trailing slash. */
  readonly api: string;
  readonly tools: readonly ToolTarget[];
}

export class BridgeConfigError extends Error {
  readonly code = "HUBMCP_BRIDGE_CONFIG";
}

// A path segment needing no escaping, so names read the same in URLs, logs and prefixes.
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
// A bearer token is one header value: visible ASCII, no spaces (RFC 6750 b64token is narrower still).
const TOKEN = /^[\x21-\x7e]+$/;

function parseApi(raw: string | undefined, allowHttp: boolean): string {
  const text = raw === undefined || raw.trim() === "" ? DEFAULT_HUB_API : raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BridgeConfigError("HUB_API must be an http:// or https:// URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new BridgeConfigError("HUB_API must be an http:// or https:// URL");
  if (url.search || url.hash || url.username || url.password) throw new BridgeConfigError("HUB_API must be a base URL without query, fragment or credentials");
  // The token is a bearer credential: over plain http to another host anyone on the path can take it.
  // A bearer token goes over plain http only to this machine (nobody else sees loopback traffic).
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname) && !allowHttp) {
    throw new BridgeConfigError(
      "HUB_API is plain http:// to another host, which would send HUB_TOKEN unencrypted; use https://, or set HUB_ALLOW_HTTP=1 on a network you trust",
    );
  }
  return url.href.replace(/\/+$/, "");
}

function parseTools(raw: string | undefined): Array<{ tool: string; revision: string | null }> {
  const text = raw === undefined || raw.trim() === "" ? DEFAULT_HUB_TOOLS : raw;
  const seen = new Set<string>();
  const tools: Array<{ tool: string; revision: string | null }> = [];
  for (const entry of text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")) {
    const at = entry.indexOf("@");
    const tool = at < 0 ? entry : entry.slice(0, at);
    const revision = at < 0 ? null : entry.slice(at + 1);
    if (!NAME.test(tool) || (revision !== null && !NAME.test(revision))) {
      throw new BridgeConfigError("HUB_TOOLS must be comma-separated tool names (letters, digits, . _ -), each optionally name@revision");
    }
    const key = `${tool}@${revision ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    tools.push({ tool, revision });
  }
  if (tools.length === 0) throw new BridgeConfigError("HUB_TOOLS names no tool");
  return tools;
}

/** Reads and checks the environment; throws BridgeConfigError with a one-line message that never echoes the token. */
export function readBridgeConfig(env: Readonly<Record<string, string | undefined>>): BridgeConfig {
  const token = env.HUB_TOKEN?.trim() ?? "";
  if (token === "") throw new BridgeConfigError("HUB_TOKEN is not set; create an API token on the hub and pass it in the environment");
  if (!TOKEN.test(token)) throw new BridgeConfigError("HUB_TOKEN must be a single token of visible characters");
  const api = parseApi(env.HUB_API, env.HUB_ALLOW_HTTP === "1");
  // Every tool the token's person may use, through the gateway's one endpoint: names come from the gateway.
  if (env.HUB_TOOLS?.trim() === "*") return { token, api, tools: [{ tool: "*", revision: null, label: "hub", endpoint: `${api}/mcp` }] };
  const entries = parseTools(env.HUB_TOOLS);
  const counts = new Map<string, number>();
  for (const { tool } of entries) counts.set(tool, (counts.get(tool) ?? 0) + 1);
  const labels = new Set<string>();
  const tools = entries.map(({ tool, revision }): ToolTarget => {
    const query = revision === null ? "" : `?revision=${encodeURIComponent(revision)}`;
    const base = counts.get(tool) === 1 ? tool : `${tool}_${revision ?? "default"}`;
    // Labels route URIs back, so they must differ even for `sim` beside `sim@default`.
    let label = base;
    for (let n = 2; labels.has(label); n++) label = `${base}_${n}`;
    labels.add(label);
    return { tool, revision, label, endpoint: `${api}/api/mcp/${encodeURIComponent(tool)}/mcp${query}` };
  });
  return { token, api, tools };
}
