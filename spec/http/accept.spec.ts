import { test } from "node:test";
import assert from "node:assert/strict";
import { acceptFor, parseAccept } from "../../lib/http/accept.ts";

test("Accept: what each header lets the server answer with", () => {
  const cases: [string | undefined, boolean, boolean][] = [
    [undefined, true, true],
    ["", true, true],
    ["*/*", true, true],
    ["application/json", true, false],
    ["text/event-stream", false, true],
    ["application/json, text/event-stream", true, true],
    ["text/event-stream, application/json", true, true],
    ["Application/JSON; charset=utf-8", true, false],
    ["application/*", true, false],
    ["text/*", false, true],
    ["text/html, image/png", false, false],
    ["application/json;q=0, text/event-stream", false, true],
    ["application/json; q=0.0", false, false],
    ["application/json;q=0.5", true, false],
    ["text/html, */*;q=0.1", true, true],
  ];
  for (const [header, json, sse] of cases) assert.deepEqual(acceptFor(header), { json, sse }, String(header));
  assert.deepEqual(parseAccept("*/*;q=0"), { json: false, sse: false });
});
