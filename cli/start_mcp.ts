#!/usr/bin/env node
// The `start_mcp` command. The work lives in lib/launcher; this file wires it to the
// process: argv, environment, stdout/stderr and the stop signals.
import { launch } from "../lib/launcher/launch.ts";
import { listenForStop, runIfExecutedDirectly } from "../lib/util/cli-entry.ts";

export function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  // The first signal stops cleanly, once start-up (conda, `use`, the proxy, the app's import)
  // has finished.
  const stop = listenForStop("start_mcp");
  return launch(argv, env, {
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
    stopRequested: stop.requested,
  }).finally(stop.dispose);
}

runIfExecutedDirectly(import.meta.url, "start_mcp", main);
