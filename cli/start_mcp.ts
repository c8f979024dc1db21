#!/usr/bin/env node
// The `start_mcp` command. The work lives in lib/launcher; this file wires it to the
// process: argv, environment, stdout/stderr and the stop signals.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { launch } from "../lib/launcher/launch.ts";

export function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  // SIGHUP too: closing the terminal must stop the proxy child, which has its own session.
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  let requestStop: (signal: string) => void = () => {};
  const stopRequested = new Promise<string>((resolve) => (requestStop = resolve));
  let received = 0;
  // The first signal stops cleanly, once start-up (conda, `use`, the proxy, the app's import)
  // has finished; a second one exits at once, for a start-up that hangs.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (++received === 1) return requestStop(signal);
    process.stderr.write(`start_mcp: ${signal} again; exiting now\n`);
    process.exit(1);
  };
  for (const signal of signals) process.on(signal, onSignal);
  return launch(argv, env, {
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
    stopRequested,
  }).finally(() => {
    for (const signal of signals) process.off(signal, onSignal);
  });
}

function executedDirectly(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (executedDirectly()) {
  main(process.argv.slice(2), process.env).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`start_mcp: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
