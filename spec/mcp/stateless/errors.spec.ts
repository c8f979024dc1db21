import { test } from "node:test";
import assert from "node:assert/strict";
import {
  headerMismatch,
  refusalOf,
  methodNotFound,
  missingClientCapability,
  printable,
  resourceNotFound,
  unsupportedVersion,
} from "../../../lib/mcp/stateless/errors.ts";

test("each new error has its code, its data shape and its HTTP status", () => {
  assert.deepEqual(headerMismatch("x"), { code: -32020, message: "Header mismatch: x" });
  assert.deepEqual(missingClientCapability({ sampling: {} }), {
    code: -32021,
    message: "Missing required client capability",
    data: { requiredCapabilities: { sampling: {} } },
  });
  assert.deepEqual(unsupportedVersion(["2026-07-28"], "1999-01-01").data, { supported: ["2026-07-28"], requested: "1999-01-01" });
  assert.deepEqual(methodNotFound(), { code: -32601, message: "Method not found" });
  assert.deepEqual(resourceNotFound("test://nope"), { code: -32602, message: "Resource not found", data: { uri: "test://nope" } });
  assert.deepEqual([-32020, -32021, -32022, -32601, -32602, -32603].map(refusalOf), [
    "header-mismatch",
    "missing-capability",
    "unsupported-version",
    "unknown-method",
    undefined,
    undefined,
  ]);
});

test("client-supplied values are echoed only when short and printable", () => {
  assert.equal(printable("ok"), "ok");
  assert.equal(printable("x".repeat(129)), "(unprintable)");
  assert.equal(printable("a\nb"), "(unprintable)");
  assert.equal(printable(5), "(unprintable)");
  assert.equal(unsupportedVersion([], { evil: true }).data?.requested, "(unprintable)");
});
