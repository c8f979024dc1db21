import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as hooks from "../../lib/launcher/ts-hooks.ts";
import { tempDir } from "../helpers/launcher-fixtures.ts";

const typescriptUrl = pathToFileURL(createRequire(import.meta.url).resolve("typescript")).href;

const SOURCE = `import type { Thing } from "./thing.ts";
export enum Unit { M = 1 }
export function area(w: number, h: number): number {
  /** Area of a rectangle. */
  return w * h;
}
export const t: Thing | undefined = undefined;
`;

test("transpile keeps comments inside function bodies, drops types, and compiles enums", async () => {
  const ts = (await import(typescriptUrl)).default as hooks.TypeScriptApi;
  const out = hooks.transpile(ts, SOURCE, "/x/app.ts");
  assert.match(out, /\/\*\* Area of a rectangle\. \*\//);
  assert.doesNotMatch(out, /: number/);
  assert.doesNotMatch(out, /import type/);
  assert.match(out, /Unit\[Unit\["M"\] = 1\] = "M"/);
  assert.match(out, /sourceMappingURL=data:application\/json/);
});

test("resolve maps ./x.js to ./x.ts from TypeScript files only, and keeps other errors", async () => {
  const notFound = Object.assign(new Error("not found"), { code: "ERR_MODULE_NOT_FOUND" });
  const tried: string[] = [];
  const next = async (specifier: string) => {
    tried.push(specifier);
    if (specifier.endsWith(".ts") || specifier.endsWith(".mts")) return { url: `file:///app/${specifier.slice(2)}` };
    throw notFound;
  };
  const fromTs = { parentURL: "file:///app/main.ts" };
  assert.deepEqual(await hooks.resolve("./util.js", fromTs, next), { url: "file:///app/util.ts" });
  assert.deepEqual(await hooks.resolve("./m.mjs", fromTs, next), { url: "file:///app/m.mts" });
  await assert.rejects(hooks.resolve("./util.js", { parentURL: "file:///app/main.mjs" }, next), notFound);
  await assert.rejects(hooks.resolve("pkg/util.js", fromTs, next), notFound);
  await assert.rejects(hooks.resolve("./data.json", fromTs, next), notFound);
  await assert.rejects(hooks.resolve("./x.js", {}, next), notFound);
  const never = async () => {
    throw notFound;
  };
  await assert.rejects(hooks.resolve("./gone.js", fromTs, never), notFound);
  assert.deepEqual(await hooks.resolve("node:fs", fromTs, async (s) => ({ url: s })), { url: "node:fs" });
});

test("load compiles .ts files with the compiler given to initialize, delegates the library's own source, and passes the rest on", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "app.ts");
  writeFileSync(file, SOURCE);
  const own = join(dir, "lib");
  const passed: string[] = [];
  const next = async (url: string) => {
    passed.push(url);
    if (url.endsWith("unknown.ts")) throw Object.assign(new Error("unknown"), { code: "ERR_UNKNOWN_FILE_EXTENSION" });
    if (url.endsWith("broken.ts")) throw Object.assign(new Error("broken"), { code: "EIO" });
    return { format: "module", source: "export {}" };
  };
  await assert.rejects(hooks.load(pathToFileURL(file).href, {}, next), /before initialize/);
  hooks.initialize({ typescript: typescriptUrl, delegate: pathToFileURL(own).href + "/" });
  const loaded = await hooks.load(pathToFileURL(file).href, {}, next);
  assert.equal(loaded.format, "module");
  assert.equal(loaded.shortCircuit, true);
  assert.match(String(loaded.source), /Area of a rectangle/);

  assert.deepEqual(await hooks.load("file:///x/plain.mjs", {}, next), { format: "module", source: "export {}" });
  assert.deepEqual(await hooks.load("node:fs", {}, next), { format: "module", source: "export {}" });
  // The library's own source goes to the next loader (tsx) first...
  assert.deepEqual(await hooks.load(pathToFileURL(join(own, "index.ts")).href, {}, next), { format: "module", source: "export {}" });
  await assert.rejects(hooks.load(pathToFileURL(join(own, "broken.ts")).href, {}, next), /broken/);
  // ...and is compiled here when no loader there knows TypeScript.
  writeFileSync(join(dir, "lib-unknown.ts"), "export const x: number = 1;");
  hooks.initialize({ typescript: typescriptUrl, delegate: pathToFileURL(dir).href + "/" });
  const fallback = await hooks.load(pathToFileURL(join(dir, "lib-unknown.ts")).href, {}, async (url) => {
    passed.push(url);
    throw Object.assign(new Error("unknown"), { code: "ERR_UNKNOWN_FILE_EXTENSION" });
  });
  assert.match(String(fallback.source), /export const x = 1;/);
  assert.deepEqual(passed.slice(0, 2), ["file:///x/plain.mjs", "node:fs"]);
});
