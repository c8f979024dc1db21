// The member finder that lets the gateway splice trace context into a body: exact indexes on
// the shapes JSON allows, and no answer wherever the text could mean something else.
import assert from "node:assert/strict";
import { test } from "node:test";
import { memberAt, skipSpace } from "../../lib/util/json-members.ts";

test("memberAt finds the one member by its key, past strings, containers, numbers and literals", () => {
  const text = ' { "a" : "x\\"}{[" , "b":[1,{"c":"]"}],"n": -1.5e3 ,"t":true,"z":null, "params" :{"k":1} } ';
  const found = memberAt(text, skipSpace(text, 0), "params");
  assert.deepEqual(found, { value: text.indexOf('{"k"'), members: 6 });
  assert.equal(memberAt(text, skipSpace(text, 0), "nope")!.value, -1);
  assert.equal(memberAt(text, skipSpace(text, 0), "n")!.value, text.indexOf("-1.5e3"));
  assert.equal(memberAt('{"a":{"x":[1,2]},"b":2}', 0, "b")!.value, 21);
  assert.deepEqual(memberAt("{}", 0, "a"), { value: -1, members: 0 });
  assert.deepEqual(memberAt("{ \n\t}", 0, "a"), { value: -1, members: 0 });
});

test("strings long and short, with escaped quotes and backslashes, end where JSON says", () => {
  for (const s of ["", "x", 'a"b', "a\\", '\\\\"', `${"y".repeat(40)}"${"z".repeat(40)}\\`, `${"\\".repeat(31)}"`, "é\u2028😀"]) {
    const text = JSON.stringify({ s, params: { s } });
    assert.equal(memberAt(text, 0, "params")!.value, text.lastIndexOf('{"s"'), JSON.stringify(s));
  }
});

test("no answer where a key is spelt with an escape, repeated, or the text is not an object", () => {
  assert.equal(memberAt('{"p\\u0061rams":{}}', 0, "params"), null);
  assert.equal(memberAt('{"x\\"":1,"params":{}}', 0, "params"), null);
  assert.equal(memberAt('{"params":{},"params":{}}', 0, "params"), null);
  assert.equal(memberAt("[1]", 0, "params"), null);
  assert.equal(memberAt(' {"a":1}', 0, "a"), null);
  // Text JSON.parse refused is never handed over, but a broken one still gets no answer.
  for (const broken of ['{"a', '{"a":"x', '{"a":[1', '{"a":["x', '{"a":1 "b":2}', "{a:1}", '{"a":1,', '{"a":1'])
    assert.equal(memberAt(broken, 0, "b"), null, broken);
});
