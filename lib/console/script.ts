// The console's script: the browser modules in ./client (plain JavaScript, type-checked
// against the DOM by client/tsconfig.json) joined into one strict-mode function, served as
// console/console.js. One classic script keeps the page's policy at `script-src 'self'` with a
// single request, and needs no bundler: each module imports as `import { a, b } from "./x.js";`
// and exports by writing `export` before a declaration, so joining drops those words and puts
// every module after the ones it imports, the order a browser would run them in.
import { readFileSync } from "node:fs";

const IMPORT = /^import \{([\w\s,]*)\} from "\.\/([\w-]+\.js)";\n/gm;
const EXPORT = /^export (?=(?:async )?function |const |let |class )/gm;
/** Declarations at column 0: the module's top level, where joined modules share one scope. */
const DECLARED = /^(?:async )?function\*? ?(\w+)|^(?:const|let|var|class) (\w+)/gm;

/** Raised when the client modules break the form above: a packaging mistake, found at start-up. */
class ConsoleScriptError extends Error {
  readonly code = "HUBMCP_CONSOLE_SCRIPT";
}

/** The modules `entry` in `dir` reaches, joined into one script. */
export function joinModules(dir: URL, entry: string): string {
  const bodies = new Map<string, string>();
  const open = new Set<string>();
  const visit = (file: string): void => {
    if (bodies.has(file)) return;
    if (open.has(file)) throw new ConsoleScriptError(`console script: ${file} is imported through a cycle`);
    open.add(file);
    const source = readFileSync(new URL(file, dir), "utf8");
    for (const m of source.matchAll(IMPORT)) {
      // A renamed import (`a as b`) would leave `b` undefined once the modules share a scope.
      if (!m[1]!.split(",").every((name) => /^\s*\w*\s*$/.test(name))) throw new ConsoleScriptError(`console script: ${file} renames an import`);
      visit(m[2]!);
    }
    const body = source.replace(IMPORT, "").replace(EXPORT, "");
    if (/^\s*(?:import|export)\b/m.test(body)) throw new ConsoleScriptError(`console script: ${file} has an import or export the joiner does not know`);
    open.delete(file);
    bodies.set(file, body);
  };
  visit(entry);
  const owner = new Map<string, string>();
  for (const [file, body] of bodies) {
    for (const m of body.matchAll(DECLARED)) {
      const name = (m[1] ?? m[2])!;
      const first = owner.get(name);
      if (first) throw new ConsoleScriptError(`console script: ${name} is declared in both ${first} and ${file}`);
      owner.set(name, file);
    }
  }
  return ['"use strict";', "(function () {", ...bodies.values(), "})();", ""].join("\n");
}

export const consoleScript = joinModules(new URL("./client/", import.meta.url), "app.js");
