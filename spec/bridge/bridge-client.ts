// Spawns hub_bridge (under tsx, so no build is needed) with the official SDK's stdio
// client, the way desktop hosts run it. Its stderr is collected for assertions.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";

export const BRIDGE_CLI = fileURLToPath(new URL("../../cli/hub_bridge.ts", import.meta.url));

interface After {
  after(fn: () => unknown): void;
}

export interface BridgeUnderTest {
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
  /** Resolves once stderr matched. */
  waitForStderr(pattern: RegExp): Promise<void>;
}

export function bridgeEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  // The whole environment passes (coverage collection in child processes needs NODE_V8_COVERAGE).
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) out[k] = v;
  return out;
}

export function spawnBridge(t: After, env: Record<string, string | undefined>, capabilities: Record<string, unknown> = {}): BridgeUnderTest {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", BRIDGE_CLI],
    env: bridgeEnv(env),
    stderr: "pipe",
  });
  let text = "";
  const waiters = new Set<{ pattern: RegExp; done: () => void }>();
  transport.stderr?.on("data", (chunk: Buffer) => {
    text += chunk.toString();
    for (const w of waiters) if (w.pattern.test(text)) waiters.delete(w), w.done();
  });
  const client = new Client({ name: "bridge-spec", version: "1.0.0" }, { capabilities });
  t.after(() => client.close());
  return {
    client,
    transport,
    stderr: () => text,
    waitForStderr: (pattern) =>
      new Promise<void>((done) => {
        if (pattern.test(text)) return done();
        waiters.add({ pattern, done });
      }),
  };
}
