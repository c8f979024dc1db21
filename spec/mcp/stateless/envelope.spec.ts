import { test } from "node:test";
import assert from "node:assert/strict";
import { checkEnvelope, isStatelessVersion, META, REMOVED_METHODS, requestMeta } from "../../../lib/mcp/stateless/envelope.ts";

const V = "2026-07-28";
const meta = { [META.protocolVersion]: V, [META.clientCapabilities]: { sampling: {} } };

test("only the stateless revisions are stateless versions", () => {
  assert.equal(isStatelessVersion(V), true);
  assert.equal(isStatelessVersion("2025-11-25"), false);
});

test("a complete envelope is parsed; clientInfo, logLevel and progressToken are optional", () => {
  assert.deepEqual(checkEnvelope({ _meta: meta }, V), { ok: true, envelope: { protocolVersion: V, clientCapabilities: { sampling: {} } } });
  const full = {
    _meta: { ...meta, [META.clientInfo]: { name: "c", version: "1" }, [META.logLevel]: "warning", progressToken: "p1" },
  };
  assert.deepEqual(checkEnvelope(full, V), {
    ok: true,
    envelope: { protocolVersion: V, clientCapabilities: { sampling: {} }, clientInfo: { name: "c", version: "1" }, logLevel: "warning", progressToken: "p1" },
  });
  const odd = checkEnvelope({ _meta: { ...meta, [META.clientInfo]: "c", progressToken: Number.NaN } }, V);
  assert.deepEqual(odd.ok && odd.envelope, { protocolVersion: V, clientCapabilities: { sampling: {} } });
  // stdio has no headers: only the body is checked.
  assert.equal(checkEnvelope({ _meta: meta }, undefined, undefined, false).ok, true);
});

test("envelope rejections follow the revision's order, each a refusal (HTTP 400)", () => {
  const reject = (params: unknown, header: string | undefined) => {
    const check = checkEnvelope(params, header);
    assert.equal(check.ok, false);
    if (check.ok) throw new Error("unreachable");
    assert.ok(["header-mismatch", "bad-envelope", "unsupported-version"].includes(check.refusal));
    return check.error;
  };
  assert.equal(reject({ _meta: meta }, undefined).code, -32020, "no version header");
  assert.equal(reject({}, V).code, -32602, "no _meta");
  assert.equal(reject(undefined, V).code, -32602);
  assert.match(reject({ _meta: { [META.clientCapabilities]: {} } }, V).message, /protocolVersion/);
  assert.match(reject({ _meta: { [META.protocolVersion]: V } }, V).message, /clientCapabilities/);
  assert.equal(reject({ _meta: { ...meta, [META.protocolVersion]: 7 } }, V).code, -32602);
  assert.equal(reject({ _meta: { ...meta, [META.protocolVersion]: "v999.0.0" } }, V).code, -32020, "header and _meta disagree");
  const unsupported = reject({ _meta: { ...meta, [META.protocolVersion]: "v999.0.0" } }, "v999.0.0");
  assert.deepEqual(unsupported, { code: -32022, message: "Unsupported protocol version", data: { supported: [V], requested: "v999.0.0" } });
  assert.equal(reject({ _meta: { ...meta, [META.clientCapabilities]: [] } }, V).code, -32602);
  assert.equal(reject({ _meta: { ...meta, [META.logLevel]: "loud" } }, V).code, -32602);
});

test("removed methods are listed, the new ones are not", () => {
  for (const m of ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "tasks/result", "tasks/list"])
    assert.ok(REMOVED_METHODS.has(m), m);
  for (const m of ["server/discover", "subscriptions/listen", "tasks/get", "tools/call"]) assert.equal(REMOVED_METHODS.has(m), false, m);
  assert.equal(requestMeta({ _meta: [] }), undefined);
});
