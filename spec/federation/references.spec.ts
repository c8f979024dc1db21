// Tool names a server states in `_meta["io.hubmcp/tool-refs"]` are renamed by a relay as its
// caller sees them, in backticks only, in results and tool descriptions (issue 34.1).
import { test } from "node:test";
import assert from "node:assert/strict";
import { exposedNames, exposeList, exposeToolResult } from "../../lib/federation/expose.ts";
import { renameToolRefs } from "../../lib/federation/references.ts";
import { toolRefsMeta } from "../../lib/mcp/tool-result.ts";

const rename = (name: string): string | undefined => ({ status: "lab_status", get_job_result: "lab_get_job_result" })[name];

test("only stated names between backticks are renamed, and the statement with them", () => {
  const handle = JSON.stringify({ status: "running", message: "Started `status` in the background. Call `get_job_result`; status and `other` stay." });
  const result = {
    content: [
      { type: "text", text: handle },
      { type: "image", data: "x", mimeType: "image/png" },
    ],
    _meta: { "io.hubmcp/tool-refs": ["status", "get_job_result", 7] },
  };
  const out = renameToolRefs(result, rename);
  const text = (out.content as Array<{ text: string }>)[0]!.text;
  assert.deepEqual(JSON.parse(text), {
    status: "running",
    message: "Started `lab_status` in the background. Call `lab_get_job_result`; status and `other` stay.",
  });
  assert.deepEqual((out.content as unknown[])[1], result.content[1]);
  assert.deepEqual(out._meta, { "io.hubmcp/tool-refs": ["lab_status", "lab_get_job_result", 7] });
  // Renamed again by a second relay in front of the first.
  const twice = renameToolRefs(out, (name) => `hub_${name}`);
  assert.match((twice.content as Array<{ text: string }>)[0]!.text, /Started `hub_lab_status`.*Call `hub_lab_get_job_result`/);
});

test("nothing stated, nothing renamed: the value itself comes back", () => {
  const plain = { content: [{ type: "text", text: "Call `get_job_result`" }] };
  assert.equal(renameToolRefs(plain, rename), plain);
  const unknown = { content: [{ type: "text", text: "Call `x`" }], _meta: toolRefsMeta(["x"]) };
  assert.equal(renameToolRefs(unknown, rename), unknown);
  const odd = { content: "not blocks", _meta: { "io.hubmcp/tool-refs": "x" } };
  assert.equal(renameToolRefs(odd, rename), odd);
});

test("merged lists rename the stated names of descriptions; results take URIs and names together", () => {
  const items = [
    { name: "fit", description: "Fit a model; `plot` shows it.", _meta: toolRefsMeta(["plot"]) },
    { name: "plot", description: "Plot `fit`'s model, unstated." },
  ];
  const { items: listed, names } = exposeList("tools", [{ target: { label: "lab", tool: "lab" }, items }]);
  assert.equal(listed[0]!.description, "Fit a model; `lab_plot` shows it.");
  assert.equal(listed[1]!.description, "Plot `fit`'s model, unstated.");
  const back = exposedNames(names);
  assert.equal(back("lab", "plot"), "lab_plot");
  assert.equal(back("other", "plot"), undefined);
  const result = {
    content: [
      { type: "text", text: "Now call `plot`." },
      { type: "resource_link", uri: "ui://lab/view", name: "view" },
    ],
    _meta: toolRefsMeta(["plot"]),
  };
  assert.deepEqual(exposeToolResult({ label: "lab", tool: "lab" }, result, back).content, [
    { type: "text", text: "Now call `lab_plot`." },
    { type: "resource_link", uri: "ui://lab/lab/view", name: "view" },
  ]);
});
