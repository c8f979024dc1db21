// The console's page script: the browser modules in lib/console/client joined into one
// classic script, each after the modules it imports, with no import or export left and no
// name declared twice at the top level (joined modules share one scope).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { framePage } from "../../lib/console/frame.ts";
import { consoleScript, joinModules } from "../../lib/console/script.ts";
import { tempDir } from "../helpers/launcher-fixtures.ts";

const CLIENT = new URL("../../lib/console/client/", import.meta.url);

test("the whole script is valid JavaScript, strict, with every client module in it once", () => {
  assert.doesNotThrow(() => new Function(consoleScript));
  assert.ok(consoleScript.startsWith('"use strict";\n(function () {\n'));
  assert.doesNotMatch(consoleScript, /^\s*(?:import|export)\b/m);
  for (const file of readdirSync(CLIENT).filter((f) => f.endsWith(".js") && f !== "frame-loader.js")) {
    const header = readFileSync(new URL(file, CLIENT), "utf8").split("\n")[0]!;
    assert.match(header, /^\/\/ /, `${file} opens with a comment saying what it is`);
    assert.equal(consoleScript.split(header).length, 2, `${file} is in the script once`);
  }
});

test("each module comes after the ones it imports, in the order a browser would run them", () => {
  const at = (name: string): number => consoleScript.indexOf(`function ${name}(`);
  // app.js uses createClient (rpc.js), which uses createSseParser (sse.js); el (dom.js) is used by all.
  const order = ["el", "appView", "resourceView", "createSseParser", "createClient", "boot"];
  assert.deepEqual(
    [...order].sort((a, b) => at(a) - at(b)),
    order,
  );
  assert.match(consoleScript, /\nboot\(\);\n+\}\)\(\);\n$/, "the page starts once every module is in");
});

test("the app frame's loader is inlined whole into frame.html, and is not in the console's script", () => {
  const loader = readFileSync(new URL("frame-loader.js", CLIENT), "utf8").trimEnd();
  assert.doesNotMatch(loader, /<\/script/i);
  assert.ok(framePage.includes(`<script>${loader}</script>`));
  assert.ok(!consoleScript.includes(loader.split("\n")[0]!));
});

function modules(t: { after(fn: () => unknown): void }, files: Record<string, string>): URL {
  const dir = tempDir(t, "hubmcp-client-");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return pathToFileURL(`${dir}/`);
}

test("a module the joiner cannot read safely stops the server at start-up, with a code", (t) => {
  const code = { code: "HUBMCP_CONSOLE_SCRIPT" };
  const twice = modules(t, { "a.js": 'import { x } from "./b.js";\nfunction x2() {}\n', "b.js": "export function x() {}\nconst x2 = 1;\n" });
  assert.throws(() => joinModules(twice, "a.js"), { ...code, message: /x2 is declared in both b\.js and a\.js/ });
  const cycle = modules(t, {
    "a.js": 'import { b } from "./b.js";\nexport function a() {}\n',
    "b.js": 'import { a } from "./a.js";\nexport function b() {}\n',
  });
  assert.throws(() => joinModules(cycle, "a.js"), { ...code, message: /a\.js is imported through a cycle/ });
  const renamed = modules(t, { "a.js": 'import { b as c } from "./b.js";\nc();\n', "b.js": "export function b() {}\n" });
  assert.throws(() => joinModules(renamed, "a.js"), { ...code, message: /a\.js renames an import/ });
  const other = modules(t, { "a.js": "export default function a() {}\n" });
  assert.throws(() => joinModules(other, "a.js"), { ...code, message: /a\.js has an import or export/ });
  const fine = modules(t, { "a.js": 'import { b } from "./b.js";\nb();\n', "b.js": "export function b() {}\n" });
  assert.equal(joinModules(fine, "a.js"), '"use strict";\n(function () {\nfunction b() {}\n\nb();\n\n})();\n');
});
