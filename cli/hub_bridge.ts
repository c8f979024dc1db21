#!/usr/bin/env node
// The `hub_bridge` command: a stdio MCP server for desktop hosts that forwards to the hub
// gateway. Configured only by environment (HUB_TOKEN, HUB_API, HUB_TOOLS). stdout carries
// MCP messages and nothing else; every diagnostic goes to stderr.
import { Bridge } from "../lib/bridge/bridge.ts";
import { BridgeConfigError, readBridgeConfig } from "../lib/bridge/config.ts";
import { lineWriter, readLines } from "../lib/stdio/framing.ts";
import { packageVersion, runIfExecutedDirectly } from "../lib/util/cli-entry.ts";

const USAGE = `usage: hub_bridge
A stdio MCP server that forwards to the tools of a hub gateway. Configure it with
environment variables:
  HUB_TOKEN   API token for the hub (required)
  HUB_API     gateway base URL (default http://127.0.0.1:8080)
  HUB_TOOLS   comma-separated tool names, name@revision for a revision (default mcpdemo)
Options: -h, --help (this text), --version (hubmcp's version).
`;

export interface BridgeStdio {
  stdin: NodeJS.ReadableStream & import("node:stream").Readable;
  stdout: import("node:stream").Writable;
  stderr: import("node:stream").Writable;
}

export async function main(argv: string[], env: NodeJS.ProcessEnv, stdio: BridgeStdio = process): Promise<number> {
  const err = (line: string): void => void stdio.stderr.write(`hub_bridge: ${line}\n`);
  if (argv.includes("-h") || argv.includes("--help")) {
    stdio.stderr.write(USAGE);
    return 0;
  }
  if (argv.length === 1 && argv[0] === "--version") {
    stdio.stdout.write(`hub_bridge ${packageVersion()}\n`);
    return 0;
  }
  if (argv.length > 0) {
    err("takes no arguments; configure it with HUB_TOKEN, HUB_API and HUB_TOOLS");
    return 2;
  }
  let config;
  try {
    config = readBridgeConfig(env);
  } catch (e) {
    if (e instanceof BridgeConfigError) {
      err(e.message);
      return 2;
    }
    throw e;
  }
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const send = lineWriter(stdio.stdout, () => finish());
  const bridge = new Bridge(config, send, { version: packageVersion(), log: err });
  err(`forwarding ${config.tools.map((t) => (t.revision ? `${t.tool}@${t.revision}` : t.tool)).join(", ")} to ${config.api}`);
  const stopReading = readLines(stdio.stdin, {
    message: (value) => {
      if (Array.isArray(value)) for (const item of value) bridge.receive(item);
      else bridge.receive(value);
    },
    malformed: (reason) => {
      err(reason === "too-long" ? "dropped a message longer than the limit" : "dropped a line that was not JSON");
      send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    },
    // Closed input still gets an answer to every request read before it.
    end: () => void bridge.inputClosed().then(finish),
  });
  // Hosts stop a stdio server by closing its stdin, then by signals (MCP lifecycle "Shutdown").
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const onSignal = (): void => finish();
  for (const signal of signals) process.on(signal, onSignal);
  await finished;
  for (const signal of signals) process.off(signal, onSignal);
  await bridge.close();
  send.flush();
  stopReading();
  return 0;
}

runIfExecutedDirectly(import.meta.url, "hub_bridge", main);
