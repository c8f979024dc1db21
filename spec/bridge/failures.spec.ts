import { test } from "node:test";
import assert from "node:assert/strict";
import { describeFailure } from "../../lib/bridge/failures.ts";
import { detailOf, groupsOf, isRetryable } from "../../lib/federation/client-failure.ts";

const API = "https://hub.example.org";

test("each failure reads as one sentence naming the tool (or HUB_API for the token)", () => {
  assert.equal(describeFailure({ kind: "unauthorized" }, "sim", API), "HUB_TOKEN was refused by https://hub.example.org");
  assert.equal(describeFailure({ kind: "forbidden", groups: ["a", "b"] }, "sim", API), "Access to tool sim was denied: it requires membership in group a or b");
  assert.equal(describeFailure({ kind: "forbidden", groups: [] }, "sim", API), "Access to tool sim was denied by https://hub.example.org");
  assert.match(describeFailure({ kind: "session-gone" }, "sim", API), /^Tool sim lost its session/);
  assert.equal(
    describeFailure({ kind: "not-found", detail: "No such route" }, "sim", API),
    "Tool sim is not available on https://hub.example.org (No such route)",
  );
  assert.equal(
    describeFailure({ kind: "unavailable", detail: "HTTP 502" }, "sim", API, 3),
    "Tool sim is unavailable at https://hub.example.org (HTTP 502); gave up after 3 attempts",
  );
  assert.equal(describeFailure({ kind: "unavailable", detail: "ECONNRESET" }, "sim", API), "Tool sim is unavailable at https://hub.example.org (ECONNRESET)");
  assert.equal(describeFailure({ kind: "broken", detail: "ECONNRESET" }, "sim", API), "Tool sim stopped answering mid-reply (ECONNRESET)");
  assert.equal(describeFailure({ kind: "http", status: 400, detail: "" }, "sim", API), "Tool sim failed at https://hub.example.org: HTTP 400");
  assert.equal(describeFailure({ kind: "http", status: 400, detail: "bad" }, "sim", API), "Tool sim failed at https://hub.example.org: HTTP 400 (bad)");
  assert.equal(isRetryable({ kind: "unavailable", detail: "" }), true);
  assert.equal(isRetryable({ kind: "broken", detail: "" }), false);
});

test("details and groups are read from the usual JSON error shapes, bounded to one short line", () => {
  assert.equal(detailOf('{"error":"forbidden","error_description":"needs staff"}'), "needs staff");
  assert.equal(detailOf('{"error":{"code":-32001,"message":"Session\\nnot found"}}'), "Session not found");
  assert.equal(detailOf('{"message":"hi"}'), "hi");
  assert.equal(detailOf("{}"), "");
  assert.equal(detailOf("plain  text\n"), "plain text");
  assert.equal(detailOf("x".repeat(300)).length, 201);
  assert.deepEqual(groupsOf('{"error":"forbidden","required_groups":["staff"]}'), ["staff"]);
  assert.deepEqual(groupsOf('{"error":{"data":{"groups":["a",1,"b"]}}}'), ["a", "b"]);
  assert.deepEqual(groupsOf('{"requiredGroups":["x"]}'), ["x"]);
  assert.deepEqual(groupsOf("not json"), []);
  assert.deepEqual(groupsOf('"text"'), []);
});
