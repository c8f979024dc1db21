// The initialize result the host sees when several tools are bridged: the union of their
// capabilities (list changes always announced, since a tool that is down now may come
// back with new names), the bridge's own serverInfo, and each tool's instructions under
// its label.
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

export function mergedInitializeResult(ready: ReadonlyArray<{ label: string; result: Result }>, version: string): Result {
  let capabilities: unknown = {};
  for (const { result } of ready) capabilities = union(capabilities, result.capabilities);
  const announced = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true }, logging: {} };
  const instructions = ready
    .filter(({ result }) => typeof result.instructions === "string" && result.instructions !== "")
    .map(({ label, result }) => `${label} (names prefixed ${label}_): ${result.instructions as string}`);
  return {
    protocolVersion: ready[0]!.result.protocolVersion,
    capabilities: union(capabilities, announced),
    serverInfo: { name: "hub_bridge", version },
    ...(instructions.length > 0 ? { instructions: instructions.join("\n\n") } : {}),
  };
}
