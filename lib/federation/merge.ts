// The one initialize result of a relay over several servers. What the relay itself offers is
// a lib/mcp ServerDescription (so `initialize` and `server/discover` build on the same
// thing); the servers that are already started add their capabilities (a union: a relay
// passes on whatever one of them offers) and their instructions, each under its label.
// Two cases of this one function, because the two relays know different things at
// initialize: hub_bridge starts its few tools first (with the host's own params) and so
// merges their results; `/mcp` starts no tool session at initialize (a person may use
// hundreds, and the session may continue on another replica), so it announces its
// description alone, the superset a tool it relays to may need.
import { sessionCapabilities, type ServerDescription } from "../mcp/stateless/results.ts";
import { isRecord, setOwn } from "../util/guards.ts";

type Result = Record<string, unknown>;

function union(a: unknown, b: unknown): unknown {
  if (!isRecord(a) || !isRecord(b)) return b ?? a;
  const out: Result = { ...a };
  // Own keys only: a tool's capability named `constructor` or `__proto__` must merge as data,
  // never with (or into) Object.prototype.
  for (const [key, value] of Object.entries(b)) setOwn(out, key, Object.hasOwn(out, key) ? union(out[key], value) : value);
  return out;
}

/** A started server's initialize result, under its label. */
export interface Started {
  label: string;
  result: Result;
}

/** The relay's initialize result: its own description, with the capabilities and instructions of the servers in `started`. */
export function initializeResult(description: ServerDescription, protocolVersion: unknown, started: readonly Started[] = []): Result {
  let capabilities: unknown = {};
  for (const { result } of started) capabilities = union(capabilities, result.capabilities);
  const instructions = [
    ...(description.instructions ? [description.instructions] : []),
    ...started
      .filter(({ result }) => typeof result.instructions === "string" && result.instructions !== "")
      .map(({ label, result }) => `${label} (names prefixed ${label}_): ${result.instructions as string}`),
  ];
  return {
    protocolVersion,
    capabilities: union(capabilities, sessionCapabilities(description)),
    serverInfo: description.serverInfo,
    ...(instructions.length > 0 ? { instructions: instructions.join("\n\n") } : {}),
  };
}
