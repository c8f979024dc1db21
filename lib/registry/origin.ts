// Where a registration call came from: the first stack frame outside this package. A tool
// written in TypeScript loses its parameter types to every loader but start_mcp's compile
// step, so registration must know when a handler's types were written and erased.
import { fileURLToPath } from "node:url";

/** This package's own source (lib/ or dist/): frames inside it are not the caller. */
const OWN = fileURLToPath(new URL("..", import.meta.url));
const LOCATION = /(?:^at |\()((?:file:\/\/|\/|[A-Za-z]:\\)[^()\s]*?):\d+:\d+\)?$/;
const TS_FILE = /\.[cm]?ts$/;

/** The file of the first frame of `stack` outside this package, when one names a file. */
export function callerFile(stack: string | undefined): string | undefined {
  for (const line of (stack ?? "").split("\n").slice(1)) {
    const found = LOCATION.exec(line.trim())?.[1];
    if (found === undefined) continue;
    const path = found.startsWith("file://") ? fileURLToPath(found) : found;
    if (!path.startsWith(OWN)) return path;
  }
  return undefined;
}

/** Whether the code registering now was written in TypeScript (a `.ts`, `.mts` or `.cts` file, as its stack names it). */
export function registeredFromTypeScript(): boolean {
  const file = callerFile(new Error().stack);
  return file !== undefined && TS_FILE.test(file);
}

const COMPILED = Symbol.for("hubmcp.typeScriptCompiled");

/** start_mcp compiled this process's TypeScript app: parameter types it declared were read, none erased. */
export function markTypeScriptCompiled(): void {
  (globalThis as Record<symbol, unknown>)[COMPILED] = true;
}

/** Whether start_mcp's compile step ran in this process (a global: the app may load a second copy of this module). */
export function typeScriptCompiled(): boolean {
  return (globalThis as Record<symbol, unknown>)[COMPILED] === true;
}
