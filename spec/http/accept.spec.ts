import { test } from "node:test";
import assert from "node:assert/strict";
import { acceptFor, parseAccept } from "../../lib/http/accept.ts";

test("Accept: what each header lets the server answer with", () => {
  // [header, json acceptable, SSE acceptable, a POST reply may become a stream]
  const cases: [string | undefined, boolean, boolean, boolean][] = [
    [undefined, true, true, false],
    ["", true, true, false],
    ["*/*", true, true, false],
    ["application/json", true, false, false],
    ["text/event-stream", false, true, true],
    ["application/json, text/event-stream", true, true, true],
    ["text/event-stream, application/json", true, true, true],
    ["Application/JSON; charset=utf-8", true, false, false],
    ["application/*", true, false, false],
    ["text/*", false, true, true],
    ["text/html, image/png", false, false, false],
    ["application/json;q=0, text/event-stream", false, true, true],
    ["application/json; q=0.0", false, false, false],
    ["application/json;q=0.5", true, false, false],
    ["text/html, */*;q=0.1", true, true, false],
  ];
  for (const [header, json, sse, streams] of cases) {
    assert.deepEqual(acceptFor(header), { json, sse, streams }, String(header));
    assert.deepEqual(parseAccept(header), { json, sse, streams }, String(header));
  }
  assert.deepEqual(parseAccept("*/*;q=0"), { json: false, sse: false, streams: false });
});
