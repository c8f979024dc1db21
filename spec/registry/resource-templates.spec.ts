import { test } from "node:test";
import assert from "node:assert/strict";
import { defineResourceTemplate, isUriTemplate } from "../../lib/registry/resource-templates.ts";

test("a template matches URIs of its shape and hands over decoded variables", async () => {
  const t = defineResourceTemplate("test://runs/{run}/files/{name}", (vars, uri) => ({ vars, uri }), { description: "files" });
  assert.deepEqual(t.variables, ["run", "name"]);
  assert.deepEqual(t.match("test://runs/42/files/a%20b.txt"), { run: "42", name: "a b.txt" });
  assert.equal(t.match("test://runs/42/files/"), null);
  assert.equal(t.match("test://runs/42/files/a/b"), null);
  assert.equal(t.match("test://runs/42/files/%E0%A4%A"), null);
  assert.equal(t.match("xtest://runs/42/files/a"), null);
  assert.deepEqual(t.entry, { uriTemplate: "test://runs/{run}/files/{name}", name: "test://runs/{run}/files/{name}", description: "files" });
  const content = await t.read("test://runs/1/files/x", { run: "1", name: "x" });
  assert.deepEqual(JSON.parse(content.text!), { vars: { run: "1", name: "x" }, uri: "test://runs/1/files/x" });
  assert.equal(content.mimeType, "application/json");
});

test("regex characters in the fixed part are literal", () => {
  const t = defineResourceTemplate("a+b://x.y/{id}?q", () => "", {});
  assert.deepEqual(t.match("a+b://x.y/7?q"), { id: "7" });
  assert.equal(t.match("a+b://xzy/7?q"), null);
});

test("bad templates are refused when registered", () => {
  assert.equal(isUriTemplate("a://{x}"), true);
  assert.equal(isUriTemplate("a://x"), false);
  assert.throws(() => defineResourceTemplate("no-scheme/{id}", () => "", {}), /must start with a scheme/);
  assert.throws(() => defineResourceTemplate("a://{id}/{id}", () => "", {}), /appears twice/);
  assert.throws(() => defineResourceTemplate("a://{+path}", () => "", {}), /only \{name\} holes/);
  assert.throws(() => defineResourceTemplate("a://{id}", "nope" as never, {}), /must be a function/);
  assert.throws(() => defineResourceTemplate("a://{id}", () => "", { complete: { other: () => [] } }), /not one of its arguments/);
  assert.throws(() => defineResourceTemplate("a://{id}", () => "", { complete: { id: "x" as never } }), /must be a function/);
  assert.throws(() => defineResourceTemplate("a://{id}", () => "", { complete: 5 as never }), /must be an object/);
});
