import { test } from "node:test";
import assert from "node:assert/strict";
import { charsetOf, isEventStream, mediaTypeOf } from "../../lib/http/content-type.ts";

test("mediaTypeOf: lower case, parameters and spaces dropped; no header is empty", () => {
  assert.equal(mediaTypeOf(" Application/JSON ; charset=utf-8"), "application/json");
  assert.equal(mediaTypeOf("text/event-stream"), "text/event-stream");
  assert.equal(mediaTypeOf(undefined), "");
});

test("charsetOf: the parameter as sent, quoted or not; undefined when absent", () => {
  assert.equal(charsetOf('text/plain; charset="latin1"'), "latin1");
  assert.equal(charsetOf("application/json;charset=UTF-8"), "UTF-8");
  assert.equal(charsetOf("application/json"), undefined);
  assert.equal(charsetOf(undefined), undefined);
});

test("isEventStream: text/event-stream with or without parameters, nothing that only starts like it", () => {
  assert.equal(isEventStream({ headers: { "content-type": "Text/Event-Stream; charset=utf-8" } }), true);
  assert.equal(isEventStream({ headers: { "content-type": "text/event-streams" } }), false);
  assert.equal(isEventStream({ headers: {} }), false);
});
