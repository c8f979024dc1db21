// The built package the launcher rows run: the package build (scripts/build.mjs) into a
// temporary folder, so the work tree's dist/ is neither required nor touched. Built once per run.
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface BuiltPackage {
  /** The folder holding dist/ and a package.json named hubmcp. */
  dir: string;
  /** dist/cli/start_mcp.js */
  cli: string;
  remove(): void;
}

export function buildPackage(): BuiltPackage {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "hubmcp-bench-pkg-")));
  try {
    execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), join(dir, "dist")], { stdio: "pipe" });
  } catch {
    // Type errors elsewhere still emit JavaScript; the rows fail loudly if the CLI is missing.
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "hubmcp", type: "module" }));
  return { dir, cli: join(dir, "dist", "cli", "start_mcp.js"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes an .mjs app serving `add` (same schema as the HTTP bench server) into the package folder. */
export function writeAddApp(pkg: BuiltPackage, name = "app.mjs"): string {
  const app = join(pkg.dir, name);
  writeFileSync(
    app,
    `import { McpServer } from "./dist/lib/index.js";
export const server = new McpServer("hubmcp-bench");
server.tool(function add(a, b) { return a + b; }, {
  description: "Add two numbers and return the sum.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
});
`,
  );
  return app;
}

/** Whether this build's start_mcp has a flag, read from its --help text. */
export function cliHasFlag(pkg: BuiltPackage, flag: string): boolean {
  try {
    const help = execFileSync(process.execPath, [pkg.cli, "--help"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return new RegExp(`(^|\\s)${flag}\\b`).test(help);
  } catch (err) {
    const out = (err as { stdout?: string; stderr?: string }).stdout ?? "";
    return new RegExp(`(^|\\s)${flag}\\b`).test(out + ((err as { stderr?: string }).stderr ?? ""));
  }
}
