// The OTEL_* variables as the OpenTelemetry specification defines them; unusable values ignored.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keyValues, tracingConfig } from "../../lib/telemetry/config.ts";
import { Tracer } from "../../lib/telemetry/tracer.ts";
import { parentFromMeta } from "../../lib/util/trace-context.ts";

const parent = (sampled: boolean) => parentFromMeta({ _meta: { traceparent: `00-${"1".repeat(32)}-${"2".repeat(16)}-${sampled ? "01" : "00"}` } });

test("endpoint: the traces variable as is, else the base with /v1/traces; none, or unusable, exports nothing", () => {
  assert.equal(tracingConfig({}, "x").endpoint, null);
  assert.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, "x").endpoint?.href, "http://c:4318/v1/traces");
  assert.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318//" }, "x").endpoint?.href, "http://c:4318/v1/traces");
  const both = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://a", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://b/custom" };
  assert.equal(tracingConfig(both, "x").endpoint?.href, "https://b/custom");
  assert.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" }, "x").endpoint, null);
  assert.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "file:///tmp" }, "x").endpoint, null);
  assert.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_SDK_DISABLED: "true" }, "x").endpoint, null);
  assert.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_TRACES_EXPORTER: "none" }, "x").endpoint, null);
});

test("service name, resource attributes and headers", () => {
  assert.deepEqual(tracingConfig({}, "hub_gateway").resource, { "service.name": "hub_gateway" });
  const env = {
    OTEL_SERVICE_NAME: "gw",
    OTEL_RESOURCE_ATTRIBUTES: "service.name=ignored,host.name=h%201, =x,novalue,bad=%E0%A4%A",
    OTEL_EXPORTER_OTLP_HEADERS: "a=1,b=2",
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: "b=3",
  };
  const c = tracingConfig(env, "x");
  assert.deepEqual(c.resource, { "service.name": "gw", "host.name": "h 1" });
  assert.deepEqual(c.headers, { a: "1", b: "3" });
  assert.deepEqual(keyValues("k=a%0Ab"), {}, "no line breaks into a header");
  assert.deepEqual(keyValues(undefined), {});
});

test("samplers: always_on/off, traceidratio, parentbased_* (the default), a bad argument taken as 1", () => {
  const decide = (sampler: string | undefined, arg: string | undefined, p: ReturnType<typeof parent>, traceId = "f".repeat(32)) =>
    tracingConfig({ OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: arg }, "x").sampler(p, traceId);
  assert.equal(decide("always_on", undefined, parent(false)), true);
  assert.equal(decide("always_off", undefined, parent(true)), false);
  assert.equal(decide(undefined, undefined, parent(false)), false);
  assert.equal(decide(undefined, undefined, null), true);
  assert.equal(decide("nonsense", undefined, null), true);
  assert.equal(decide("parentbased_always_off", undefined, null), false);
  assert.equal(decide("parentbased_always_off", undefined, parent(true)), true);
  assert.equal(decide("traceidratio", "0.5", null, `${"0".repeat(19)}0000000000001`), true);
  assert.equal(decide("traceidratio", "0.5", null, `${"0".repeat(19)}fffffffffffff`), false);
  assert.equal(decide("traceidratio", "0", null), false);
  assert.equal(decide("traceidratio", "2", null), true, "out of range: 1");
  assert.equal(decide("traceidratio", "", null), true);
  assert.equal(decide("parentbased_traceidratio", "0", parent(true)), true);
  assert.equal(decide("parentbased_traceidratio", "0", null), false);
});

test("a tracer's contexts carry the sampler's decision in their flags", () => {
  const off = new Tracer(tracingConfig({ OTEL_TRACES_SAMPLER: "always_off" }, "x"));
  const ctx = off.context(parent(true));
  assert.equal(ctx.sampled, false);
  assert.match(ctx.traceparent, /-00$/);
  assert.equal(off.active, false, "no endpoint, no subscriber");
  const on = new Tracer(null);
  assert.equal(on.context(null).sampled, true);
  assert.equal(on.context(parent(false)).sampled, false);
});
