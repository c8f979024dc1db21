// The package build (`npm run build`, `prepare`): tsc emits lib/ and cli/ into dist/ (or the
// folder given), and the console's browser modules, which tsc only checks, are copied byte
// for byte beside the script that joins them (dist/lib/console/client), so the installed
// package serves the page the specs ran, and the TypeScript compiler is copied into
// dist/vendor (vendorTypescript). Exits with tsc's status, after copying either way.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Copies the console's browser modules into a built tree laid out like the work tree
 * (dist/, or a folder of transpiled lib/ as the specs and benchmarks make).
 * @param {string} out the folder that gets lib/console/client
 */
export function copyConsoleClient(out) {
  const from = join(ROOT, "lib", "console", "client");
  const to = join(out, "lib", "console", "client");
  mkdirSync(to, { recursive: true });
  for (const file of readdirSync(from)) if (file.endsWith(".js")) copyFileSync(join(from, file), join(to, file));
}

/**
 * Copies the TypeScript compiler (one file, plus its license) into dist/vendor/typescript, so an
 * installed hubmcp compiles .ts apps with nothing installed beside them (start_mcp looks for a
 * `typescript` beside the app and beside hubmcp first). It is a file of the package, not a
 * dependency: installing needs no registry.
 * @param {string} out the built tree (dist/)
 */
export function vendorTypescript(out) {
  const pkgFile = createRequire(import.meta.url).resolve("typescript/package.json");
  const from = dirname(pkgFile);
  const to = join(out, "vendor", "typescript");
  mkdirSync(to, { recursive: true });
  copyFileSync(join(from, "lib", "typescript.js"), join(to, "typescript.js"));
  for (const file of ["LICENSE.txt", "ThirdPartyNoticeText.txt"]) copyFileSync(join(from, file), join(to, file));
  const { name, version, license } = JSON.parse(readFileSync(pkgFile, "utf8"));
  writeFileSync(join(to, "package.json"), `${JSON.stringify({ name, version, license, type: "commonjs", main: "typescript.js" }, null, 2)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const out = resolve(process.argv[2] ?? join(ROOT, "dist"));
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const built = spawnSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", out], { stdio: "inherit" });
  copyConsoleClient(out);
  vendorTypescript(out);
  process.exit(built.status ?? 1);
}
