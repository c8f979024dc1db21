// The Python stdio MCP server of fixtures/stdio-server, and a python that runs it: a venv with
// the official `mcp` SDK from the machine's package index (./python-venv.ts).
import { join } from "node:path";
import { ROOT } from "./launcher-fixtures.ts";
import { pythonWith } from "./python-venv.ts";

export const STDIO_FIXTURE = join(ROOT, "fixtures/stdio-server/server.py");

/** The venv's python, or null when the test was skipped (no package index here; in CI a failure). */
export async function fixturePython(t: { skip(message: string): void }): Promise<string | null> {
  const env = await pythonWith("mcp", ["mcp"]);
  if ("missing" in env && process.env.CI) throw new Error(`needs ${env.missing}: CI must run the stdio server specs`);
  if ("missing" in env) {
    t.skip(`needs ${env.missing}`);
    return null;
  }
  return env.python;
}
