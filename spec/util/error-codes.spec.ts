// One error-code style (lib/util/errors.ts): every error class of lib/ carries a `code` of
// the HUBMCP_* form, read here from the source so a new class cannot drift. Wire codes live
// in fields of their own (GatewayError.error, rpcCode); the allow-list holds the classes whose
// `code` is a wire code by definition, each with its reason.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const LIB = fileURLToPath(new URL("../../lib/", import.meta.url));
const HUBMCP_CODE = /^HUBMCP_[A-Z0-9]+(?:_[A-Z0-9]+)*$/;

/** Classes whose `code` is not ours to name. */
const ALLOWED: Record<string, string> = {
  JsonRpcError: "public API: `code` is the JSON-RPC error code the client receives (numeric, JSON-RPC 2.0 section 5.1)",
  RpcError: "the browser console's client: mirrors the JSON-RPC error object a server answered",
};

interface ErrorClass {
  name: string;
  file: string;
  /** The codes its `code` may take; null when it declares none. */
  codes: string[] | null;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|js|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The text between the class's braces. */
function bodyAt(text: string, from: number): string {
  const open = text.indexOf("{", from);
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

const literals = (typeText: string): string[] => Array.from(typeText.matchAll(/"([^"]*)"/g), (m) => m[1]!);

/** The codes a `readonly code` declaration allows: its initialiser, its literal union, or the union a type alias in the same file names. */
function declaredCodes(body: string, fileText: string): string[] | null {
  const decl = /readonly code\s*(?::\s*([^=;,)]+?))?\s*(?:=\s*("[^"]*"))?\s*[;,)]/.exec(body);
  if (!decl) return null;
  if (decl[2] !== undefined) return literals(decl[2]);
  const type = (decl[1] ?? "").trim();
  if (/^\w+$/.test(type)) {
    const alias = new RegExp(`type ${type}\\s*=([^;]*);`).exec(fileText);
    return alias ? literals(alias[1]!) : [type];
  }
  return literals(type).length > 0 ? literals(type) : [type];
}

function errorClasses(): ErrorClass[] {
  return sources(LIB).flatMap((path) => {
    const text = readFileSync(path, "utf8");
    return Array.from(text.matchAll(/class\s+(\w+)\s+extends\s+(\w*Error)\b/g), (m) => ({
      name: m[1]!,
      file: relative(LIB, path),
      codes: declaredCodes(bodyAt(text, m.index + m[0].length), text),
    }));
  });
}

test("the scan finds the error classes (a broken scan would pass everything)", () => {
  const names = errorClasses().map((c) => c.name);
  for (const known of ["RegistrationError", "SlurmError", "GatewayError", "ClientRequestError", "StoreConfigError", "JsonRpcError"])
    assert.ok(names.includes(known), known);
  assert.ok(names.length >= 20, `only ${names.length} error classes found`);
});

test("every error class of lib has a HUBMCP_* code, or is allow-listed with a reason", () => {
  const wrong = errorClasses()
    .filter((c) => !(c.name in ALLOWED))
    .filter((c) => c.codes === null || c.codes.length === 0 || !c.codes.every((code) => HUBMCP_CODE.test(code)))
    .map((c) => `${c.file} ${c.name}: ${c.codes === null ? "no `readonly code`" : c.codes.join(" | ")}`);
  assert.deepEqual(wrong, []);
});

test("no two error classes share a code, and the allow-list names only classes that exist", () => {
  const classes = errorClasses();
  const owner = new Map<string, string>();
  for (const c of classes) {
    if (c.name in ALLOWED) continue;
    for (const code of c.codes ?? []) {
      assert.equal(owner.get(code) ?? c.name, c.name, `${code} is the code of both ${owner.get(code)} and ${c.name}`);
      owner.set(code, c.name);
    }
  }
  for (const name of Object.keys(ALLOWED))
    assert.ok(
      classes.some((c) => c.name === name),
      `stale allow-list entry ${name}`,
    );
});

test("no two classes of lib share a name (two LaunchErrors told nothing apart)", () => {
  const seen = new Map<string, string>();
  for (const path of sources(LIB)) {
    for (const m of readFileSync(path, "utf8").matchAll(/^\s*(?:export\s+)?(?:abstract\s+)?class\s+(\w+)/gm)) {
      const file = relative(LIB, path);
      assert.equal(seen.get(m[1]!) ?? file, file, `class ${m[1]} is defined in ${seen.get(m[1]!)} and ${file}`);
      seen.set(m[1]!, file);
    }
  }
});
