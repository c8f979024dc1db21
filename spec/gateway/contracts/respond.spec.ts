// The gateway's refusals name a code; one table in lib/gateway/contracts/respond.ts gives the status.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BodyError } from "../../../lib/http/body.ts";
import { GatewayError, knownFailure } from "../../../lib/gateway/contracts/respond.ts";

test("a gateway refusal's status comes from its code, in one table", () => {
  const expected: Record<string, number> = {
    unauthorized: 401,
    forbidden: 403,
    unknown_session: 404,
    method_not_allowed: 405,
    too_many_running: 429,
    upstream_unavailable: 502,
    gateway_busy: 503,
    tool_session_not_ready: 504,
  };
  for (const [code, status] of Object.entries(expected)) {
    const err = new GatewayError(code as ConstructorParameters<typeof GatewayError>[0], "m");
    assert.equal(err.status, status, code);
    assert.equal(err.error, code);
    assert.equal(err.code, "HUBMCP_GATEWAY_REFUSAL");
  }
});

test("a body failure becomes the gateway refusal of the same wire code, with the kit's status and headers", () => {
  const tooLarge = knownFailure(new BodyError("HUBMCP_BODY_TOO_LARGE", 10))!;
  assert.deepEqual([tooLarge.status, tooLarge.error, tooLarge.headers], [413, "body_too_large", { connection: "close" }]);
  const aborted = knownFailure(new BodyError("HUBMCP_BODY_ABORTED", 10))!;
  assert.deepEqual([aborted.status, aborted.error], [400, "body_aborted"]);
  assert.equal(knownFailure(new Error("other")), undefined);
});
