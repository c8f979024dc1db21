// How the gateway runs start_mcp for an `app`, `rappture`, `stdio` or `slurm` tool session,
// and the Node flags a person's own tool session gets.
import { fileURLToPath } from "node:url";

/**
 * Node flags for one person's tool session, chosen by measuring an idle session of the
 * demo `.ts` app (docs/gateway.md, "Isolation"): a young generation of 1 MB semi-spaces, V8's
 * memory-over-speed heuristics, and one V8 background thread instead of four. Together
 * about 1.5 MB less RSS than V8's defaults, with no measurable change in CPU per call (one
 * person's calls rarely allocate enough for the extra scavenges to show). Left out:
 * `--lite-mode`/`--jitless` (6 MB less, but no optimizing compiler: 1.5× the CPU per call
 * and 7× for a hot loop) and allocator or libuv settings, which the tools' own children
 * would inherit. A shared tool server keeps V8's defaults.
 */
export const LEAN_SESSION_FLAGS: readonly string[] = ["--max-semi-space-size=1", "--optimize-for-size", "--v8-pool-size=1"];

/** How to run start_mcp: from source under tsx when this file is TypeScript, else the built CLI. */
export function launcherCommand(lean = false): string[] {
  const here = import.meta.url;
  const node = lean ? [process.execPath, ...LEAN_SESSION_FLAGS] : [process.execPath];
  if (here.endsWith(".ts")) {
    return [...node, "--import", import.meta.resolve("tsx"), fileURLToPath(new URL("../../../cli/start_mcp.ts", here))];
  }
  return [...node, fileURLToPath(new URL("../../../cli/start_mcp.js", here))];
}
