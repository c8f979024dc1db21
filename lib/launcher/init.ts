// `start_mcp init [DIR]`: makes a folder outside any hubmcp clone a place to write a .ts app
// with full types, with no npm install there. It writes DIR/tsconfig.json whose `paths` send
// `import … from "hubmcp"` to the declaration files of the hubmcp that is running, which is
// the copy start_mcp serves the app with; editors read tsconfig.json, and `tsc -p DIR` checks
// the app. `skipLibCheck`: a global install carries no @types/node, so hubmcp's own files are
// not checked against it (the app's code is).
import { existsSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Where init's lines go: the launcher's io (launch.ts calls init, so init names no type of it). */
export interface InitIo {
  out(line: string): void;
  err(line: string): void;
}

const NAME = "start_mcp";

/** The package root of a module under its lib/: `<root>/dist/lib/…` when built, `<root>/lib/…` from source. */
export function packageRootOf(moduleUrl: string): string {
  const lib = dirname(dirname(fileURLToPath(moduleUrl)));
  return basename(dirname(lib)) === "dist" ? dirname(dirname(lib)) : dirname(lib);
}

/** The tsconfig.json `init` writes, for declarations under `types` (the running hubmcp's dist/lib). */
export function appTsconfig(types: string): Record<string, unknown> {
  return {
    compilerOptions: {
      target: "ES2022",
      module: "ESNext",
      // start_mcp resolves imports itself; "Bundler" reads them as it does, `.ts` extensions included.
      moduleResolution: "Bundler",
      allowImportingTsExtensions: true,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      paths: { hubmcp: [join(types, "index.d.ts")], "hubmcp/gateway": [join(types, "gateway", "index.d.ts")] },
    },
  };
}

/** `root`: the hubmcp whose declarations the app gets (the running one). */
export function initCommand(args: readonly string[], io: InitIo, root = packageRootOf(import.meta.url)): number {
  if (args.length > 1 || args.some((a) => a.startsWith("-"))) {
    io.err(`${NAME}: usage: start_mcp init [DIR]`);
    return 2;
  }
  const dir = resolve(args[0] ?? ".");
  const types = join(root, "dist", "lib");
  if (!existsSync(join(types, "index.d.ts"))) {
    io.err(`${NAME}: hubmcp's type declarations are not built (${types}); run \`npm run build\` in ${root}`);
    return 1;
  }
  if (!existsSync(dir)) {
    io.err(`${NAME}: ${dir} does not exist`);
    return 1;
  }
  const file = join(dir, "tsconfig.json");
  if (existsSync(file)) {
    io.err(`${NAME}: ${file} exists; leaving it as it is. To get hubmcp's types, add to its compilerOptions:`);
    io.err(`  "paths": ${JSON.stringify((appTsconfig(types).compilerOptions as { paths: unknown }).paths)}`);
    return 1;
  }
  writeFileSync(file, `${JSON.stringify(appTsconfig(types), null, 2)}\n`, { flag: "wx" });
  io.out(`wrote ${file}: \`import … from "hubmcp"\` in .ts files here gets its types from ${types}`);
  io.out(`check an app with: tsc -p ${dir}`);
  io.out(`serve it with:     start_mcp --app ${join(dir, "app.ts")}`);
  return 0;
}
