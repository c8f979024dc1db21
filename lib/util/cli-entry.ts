// What every command of the package (start_mcp, hub_gateway, hub_bridge) does at its edge:
// run `main` only when the file is the process's script (so specs can import it), and turn
// stop signals into a promise the command awaits.
import { readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * hubmcp's version (what `--version` prints, what hub_bridge reports), from the nearest
 * package.json named hubmcp above `from`: the source and dist/ sit at different depths.
 */
export function packageVersion(from: string = import.meta.url): string {
  for (let dir = new URL(".", from); ; dir = new URL("..", dir)) {
    const pkg = readPackage(new URL("package.json", dir));
    if (pkg?.name === "hubmcp" && typeof pkg.version === "string") return pkg.version;
    if (dir.pathname === "/") return "0.0.0";
  }
}

function readPackage(url: URL): { name?: unknown; version?: unknown } | null {
  try {
    return JSON.parse(readFileSync(url, "utf8")) as { name?: unknown; version?: unknown };
  } catch {
    return null;
  }
}

export type CommandMain = (argv: string[], env: NodeJS.ProcessEnv) => Promise<number>;

/** Runs `main` when `moduleUrl` is the script node was started with; sets process.exitCode. */
export function runIfExecutedDirectly(moduleUrl: string, name: string, main: CommandMain): void {
  if (!isProcessScript(moduleUrl)) return;
  main(process.argv.slice(2), process.env).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}

function isProcessScript(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}

export interface StopSignals {
  /** Resolves with the first signal's name. */
  readonly requested: Promise<string>;
  /** Stops listening for the signals. */
  dispose(): void;
}

/**
 * Set by `start_mcp --stdio` for the child that serves (lib/launcher/stdio-split.ts): the
 * descriptor its protocol output goes to. That child stops when its parent goes.
 */
export const STDIO_PROTOCOL_FD_ENV = "HUBMCP_STDIO_PROTOCOL_FD";

/** Set by `start_mcp --watch` for the child that serves (lib/launcher/watch.ts): it stops when its parent goes. */
export const WATCHED_CHILD_ENV = "HUBMCP_WATCHED_CHILD";

/** How often the parent is looked at under npm; a stop within this is prompt enough for a supervisor. */
const PARENT_CHECK_MS = 500;

/**
 * SIGINT, SIGTERM and SIGHUP (closing the terminal must stop children too) request a clean
 * stop; a second signal exits at once, for a stop that hangs.
 *
 * Under `npx`, `npm exec` or `npm run` (npm sets `npm_lifecycle_event`), npm 11 runs the
 * command through `sh -c`: a SIGTERM to npm is forwarded to that shell only, which dies and
 * leaves this process running with nobody to stop it. There the parent's exit is a stop
 * request too, as a hang-up. (Node cannot ask the kernel for a parent-death signal, so the
 * parent id is read every PARENT_CHECK_MS.) Outside npm a server may outlive its shell
 * (`nohup`), so the parent is not watched. start_mcp's stdio child watches its parent too.
 */
export function listenForStop(name: string, env: NodeJS.ProcessEnv = process.env): StopSignals {
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  let request: (signal: string) => void = () => {};
  const requested = new Promise<string>((resolve) => (request = resolve));
  let received = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (++received === 1) return request(signal);
    process.stderr.write(`${name}: ${signal} again; exiting now\n`);
    process.exit(1);
  };
  for (const signal of signals) process.on(signal, onSignal);
  const supervised = env.npm_lifecycle_event !== undefined || env[STDIO_PROTOCOL_FD_ENV] !== undefined || env[WATCHED_CHILD_ENV] !== undefined;
  const stopWatching = !supervised
    ? () => {}
    : watchParent(() => {
        process.stderr.write(`${name}: the process that started this command exited\n`);
        onSignal("SIGHUP");
      });
  return {
    requested,
    dispose: () => {
      stopWatching();
      signals.forEach((signal) => process.off(signal, onSignal));
    },
  };
}

/** Calls `onGone` once when this process's parent exits (it is then adopted by another). */
function watchParent(onGone: () => void): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, PARENT_CHECK_MS);
  // The watch never keeps the process alive on its own.
  timer.unref();
  return () => clearInterval(timer);
}
