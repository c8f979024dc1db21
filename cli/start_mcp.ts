#!/usr/bin/env node
// The `start_mcp` command. The work lives in lib/launcher; this file wires it to the
// process: argv, environment, stdout/stderr and the stop signals.
import { launch } from "../lib/launcher/launch.ts";
import { listenForStop, runIfExecutedDirectly } from "../lib/util/cli-entry.ts";

export function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  // The first signal stops cleanly, once start-up (conda, `use`, the proxy, the app's import)
  // has finished.
  const stop = listenForStop("start_mcp", env);
  return launch(argv, env, {
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
    stopRequested: stop.requested,
    // How to run this command again: --stdio serves from a child whose stdout is our stderr.
    relaunch: [process.execPath, ...process.execArgv, process.argv[1]!],
  }).finally(stop.dispose);
}

runIfExecutedDirectly(import.meta.url, "start_mcp", main);
