// The gateway's trace context in a forwarded body: spliced into the client's bytes where the
// text is unambiguous (exact bytes below: key order, spacing and number spellings kept), and
// written out from the parsed message where it is not, the client's trace keys gone either way.
import assert from "node:assert/strict";
import { test } from "node:test";
import { inspectRequest } from "../../../lib/gateway/relay/rewrite.ts";
import { spliceAt } from "../../../lib/gateway/relay/trace-splice.ts";

const TP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const FIELDS = { traceparent: TP };
const PREFIX = "/api/mcp/t/";

function forwarded(body: string, fields: Record<string, string> = FIELDS): string | undefined {
  const msg = inspectRequest(Buffer.from(body), PREFIX, true);
  assert.ok(msg);
  return msg.traced?.with(fields).toString("utf8");
}

test("spliced: a new _meta first in params, or the fields first in the _meta there is", () => {
  const call = '{"jsonrpc":"2.0", "id":1.0,"method":"tools/call","params": {"name":"add","arguments":{"a":1e2,"é":"😀"}}}';
  assert.equal(
    forwarded(call),
    `{"jsonrpc":"2.0", "id":1.0,"method":"tools/call","params": {"_meta":{"traceparent":"${TP}"},"name":"add","arguments":{"a":1e2,"é":"😀"}}}`,
  );
  assert.equal(
    forwarded('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{ }}'),
    `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"traceparent":"${TP}"} }}`,
  );
  assert.equal(
    forwarded('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta" : {"progressToken":7},"name":"a"}}'),
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta" : {"traceparent":"${TP}","progressToken":7},"name":"a"}}`,
  );
  assert.equal(forwarded('{"id":"x","method":"m","params":{"_meta":{ }}}'), `{"id":"x","method":"m","params":{"_meta":{"traceparent":"${TP}" }}}`);
  const all = { traceparent: TP, tracestate: "a=1", baggage: 'k="v"' };
  assert.equal(
    forwarded('{"id":1,"method":"m","params":{}}', all),
    `{"id":1,"method":"m","params":{"_meta":{"traceparent":"${TP}","tracestate":"a=1","baggage":"k=\\"v\\""}}}`,
  );
});

test("written out: client trace keys, escaped or repeated keys, a _meta that is no object, a rewritten URI", () => {
  const parsedMeta = (body: string): unknown => JSON.parse(forwarded(body)!).params._meta;
  // The client's trace keys go, malformed or not, escaped or not; its other keys stay.
  assert.deepEqual(parsedMeta('{"id":1,"method":"m","params":{"_meta":{"traceparent":"bad","tracestate":"x","baggage":"y","progressToken":1}}}'), {
    progressToken: 1,
    traceparent: TP,
  });
  assert.deepEqual(parsedMeta('{"id":1,"method":"m","params":{"_meta":{"tr\\u0061ceparent":"00-x","a":1}}}'), { a: 1, traceparent: TP });
  // Where the text is ambiguous, what JSON.parse made of it goes on.
  assert.deepEqual(parsedMeta('{"id":1,"method":"m","params":{"_m\\u0065ta":{"a":1}}}'), { a: 1, traceparent: TP });
  assert.deepEqual(parsedMeta('{"id":1,"method":"m","params":{"_meta":{"a":1},"_meta":{"b":2}}}'), { b: 2, traceparent: TP });
  assert.deepEqual(JSON.parse(forwarded('{"id":1,"method":"m","params":{"x":1},"params":{"y":2}}')!).params, { y: 2, _meta: { traceparent: TP } });
  assert.deepEqual(JSON.parse(forwarded('{"id":1,"method":"m","p\\u0061rams":{"y":2}}')!).params, { y: 2, _meta: { traceparent: TP } });
  assert.deepEqual(parsedMeta('{"id":1,"method":"m","params":{"_meta":"x"}}'), { traceparent: TP });
  assert.deepEqual(parsedMeta('{"id":1,"method":"m","params":{"_meta":null}}'), { traceparent: TP });
  const read = JSON.parse(forwarded(`{"id":1,"method":"resources/read","params":{"uri":"${PREFIX}ui://a"}}`)!);
  assert.deepEqual(read.params, { uri: "ui://a", _meta: { traceparent: TP } });
});

test("nothing to carry it in: no params, params no object, a notification, a batch", () => {
  assert.equal(forwarded('{"jsonrpc":"2.0","id":1,"method":"ping"}'), undefined);
  assert.equal(forwarded('{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}'), undefined);
  assert.equal(forwarded('{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}'), undefined);
  assert.equal(forwarded('[{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}]'), undefined);
  // A _meta that is no object is replaced by one, the body written out again.
  assert.deepEqual(JSON.parse(forwarded('{"id":1,"method":"m","params":{"_meta":1}}')!).params, { _meta: { traceparent: TP } });
});

test("the bytes as they came: copied around the insertion, never decoded", () => {
  // Before the insertion point: an id in another script, bytes that are no UTF-8 (the tool server decodes them as it would have).
  assert.equal(
    forwarded('{"id":"é","method":"tools/call","params":{"name":"a"}}'),
    `{"id":"é","method":"tools/call","params":{"_meta":{"traceparent":"${TP}"},"name":"a"}}`,
  );
  const invalid = Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xff]), Buffer.from('","method":"m","params":{}}')]);
  assert.deepEqual(
    inspectRequest(invalid, PREFIX, true)?.traced?.with(FIELDS),
    Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xff]), Buffer.from(`","method":"m","params":{"_meta":{"traceparent":"${TP}"}}}`)]),
  );
  // After it, anything: copied byte for byte, invalid UTF-8 included.
  const after = Buffer.concat([Buffer.from('{"id":1,"method":"m","params":{"a":"'), Buffer.from([0xff]), Buffer.from('"}}')]);
  const spliced = inspectRequest(after, PREFIX, true)!.traced!.with(FIELDS);
  assert.deepEqual(
    spliced,
    Buffer.concat([Buffer.from(`{"id":1,"method":"m","params":{"_meta":{"traceparent":"${TP}"},"a":"`), Buffer.from([0xff]), Buffer.from('"}}')]),
  );
  // Fields that are no ASCII (never from the gateway's own context) are written as UTF-8, and what follows moves by their bytes.
  const text = '{"id":1,"method":"m","params":{"é":2}}';
  assert.equal(
    spliceAt(Buffer.from(text), { at: text.indexOf("{", 1), newMeta: true, empty: false }, { baggage: "ü" }).toString("utf8"),
    '{"id":1,"method":"m","params":{"_meta":{"baggage":"ü"},"é":2}}',
  );
});
