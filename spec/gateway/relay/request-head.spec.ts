// The request head read without JSON.parse: what it reads of the shapes clients send, where it
// declines (the caller then parses), and, over many thousands of mutated bodies, never an
// answer where JSON.parse would refuse the text or read another method, id, tool name or _meta.
import assert from "node:assert/strict";
import { test } from "node:test";
import { scanRequest as scanBytes } from "../../../lib/gateway/relay/request-head.ts";

/** The scan of a text's UTF-8 bytes. */
const scanRequest = (text: string) => scanBytes(Buffer.from(text));

const call = (params: string, id = "1"): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`;

test("reads the method, id, tool name and where params and _meta open", () => {
  const text = call('{"name":"add","arguments":{"a":[1,-2.5e3,{"é":"😀\\n"}],"b":null,"c":true}}');
  assert.deepEqual(scanRequest(text), {
    method: "tools/call",
    id: 1,
    name: "add",
    paramsAt: text.indexOf('{"name"'),
    paramsEmpty: false,
    metaAt: -1,
    metaEmpty: true,
  });
  const meta = ' { "_meta" : {"progressToken":7} , "name" : "x" } ';
  const spaced = ` {"id" : "r-1" ,"method":"prompts/get","params":${meta}}\n`;
  const head = scanRequest(spaced)!;
  assert.equal(head.id, "r-1");
  assert.equal(head.name, "x");
  assert.equal(spaced[head.paramsAt], "{");
  assert.equal(spaced.slice(head.metaAt, head.metaAt + 16), '{"progressToken"');
  assert.deepEqual(scanRequest('{"jsonrpc":"2.0","method":"notifications/initialized"}'), {
    method: "notifications/initialized",
    id: undefined,
    paramsAt: -1,
    paramsEmpty: true,
    metaAt: -1,
    metaEmpty: true,
  });
  assert.equal(scanRequest('{"id":null,"method":"m","params":{}}')!.id, null);
  assert.equal(scanRequest('{"id":null,"method":"m","params":{}}')!.paramsEmpty, true);
  assert.equal(scanRequest('{"id":-0.5E+2,"method":"m"}')!.id, -50);
  assert.equal(scanRequest(call('{"name":7}'))!.name, undefined, "a name that is no string is no name");
  assert.equal(scanRequest(call('{"arguments":{"name":"inner","name":"twice","\\u006eame":1}}'))!.name, undefined, "nested keys are not params'");
});

test("declines what it cannot read as JSON.parse would", () => {
  const declined = [
    '{"method":"a","method":"b"}',
    '{"id":1,"id":2,"method":"m"}',
    '{"id":1,"method":"m","params":{"name":"a"},"params":{"name":"b"}}',
    call('{"name":"a","name":"b"}'),
    call('{"_meta":{},"_meta":{}}'),
    '{"m\\u0065thod":"x","method":"m"}',
    call('{"n\\u0061me":"evil","name":"add"}'),
    call('{"_meta":{"tr\\u0061ceparent":"x"}}'),
    call('{"_meta":{"traceparent":"00-x"}}'),
    call('{"_meta":{"baggage":"k=v"}}'),
    call('{"_meta":[]}'),
    call("[1,2]"),
    call('"x"'),
    '{"id":1,"method":7}',
    '{"id":1,"method":"tools\\/call"}',
    call('{"name":"a\\u0064d"}'),
    call("{}", "true"),
    call("{}", "{}"),
    call("{}", '"\\u0031"'),
    `{"id":1,"method":"m","params":{"a":${"[".repeat(80)}${"]".repeat(80)}}}`,
    `${call("{}")} x`,
    `${call("{}")}{}`,
    "[]",
    `\ufeff${call("{}")}`,
    "",
  ];
  const invalid = [
    "01",
    "1.",
    "-",
    "1e",
    "+1",
    ".5",
    "tru",
    "nul",
    "NaN",
    '"\\x"',
    '"\\u12G4"',
    '"a\nb"',
    '"open',
    "[1,]",
    "{,}",
    '{"a"}',
    '{"a":1,}',
    "[1 2]",
    "{'a':1}",
  ];
  for (const bad of invalid) declined.push(call(`{"name":"add","arguments":{"x":${bad}}}`));
  for (const text of declined) {
    assert.equal(scanRequest(text), null, text);
  }
});

/** A small deterministic generator (xorshift), so a failure names a body that can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const SEEDS = [
  call('{"name":"add","arguments":{"a":2,"b":3}}'),
  call('{"_meta":{"progressToken":"p"},"name":"echo","arguments":{"text":"x\\"y","list":[1,2,{"k":null}]}}', '"abc"'),
  '{"jsonrpc":"2.0","id":7,"method":"tools/list"}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"r"}}',
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',
];
const PIECES = [
  '"',
  "\\",
  "{",
  "}",
  "[",
  "]",
  ":",
  ",",
  " ",
  "\n",
  "0",
  "1",
  "-",
  ".",
  "e",
  "+",
  "u",
  "a",
  "null",
  "true",
  '"name"',
  '"method"',
  '"id"',
  '"params"',
  '"_meta"',
  '"traceparent"',
  "\u00e9",
  "\u0001",
].map((piece) => Buffer.from(piece));
// Bytes that are no UTF-8 on their own (a lone lead byte, a continuation, one never used): the text JSON.parse reads has U+FFFD there.
PIECES.push(Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0x80]), Buffer.from([0xe2, 0x80]));

test("never reads what JSON.parse would not: 30,000 mutated bodies", () => {
  const next = random(0x5eed);
  let read = 0;
  for (let n = 0; n < 30_000; n++) {
    let body = Buffer.from(SEEDS[n % SEEDS.length]!);
    for (let edits = 1 + Math.floor(next() * 3); edits > 0; edits--) {
      const at = Math.floor(next() * (body.length + 1));
      const piece = PIECES[Math.floor(next() * PIECES.length)]!;
      const kind = next();
      body = Buffer.concat(
        kind < 0.4
          ? [body.subarray(0, at), piece, body.subarray(at)]
          : kind < 0.7
            ? [body.subarray(0, at), body.subarray(at + 1)]
            : [body.subarray(0, at), piece, body.subarray(at + piece.length)],
      );
    }
    const head = scanBytes(body);
    const text = body.toString("utf8");
    if (!head) continue;
    read++;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(text) as Record<string, unknown>;
    } catch {
      assert.fail(`read a body JSON.parse refuses: ${JSON.stringify(text)}`);
    }
    const params = value.params as Record<string, unknown> | undefined;
    const meta = params?._meta as Record<string, unknown> | undefined;
    assert.equal(head.method, value.method, text);
    assert.ok(Object.is(head.id, value.id), text);
    assert.equal(head.name, typeof params?.name === "string" ? params.name : undefined, text);
    assert.equal(head.paramsAt >= 0, typeof params === "object" && params !== null, text);
    assert.equal(head.paramsEmpty, params === undefined || Object.keys(params).length === 0, text);
    assert.equal(head.metaAt >= 0, meta !== undefined, text);
    assert.equal(head.metaEmpty, meta === undefined || Object.keys(meta).length === 0, text);
    if (meta) assert.ok(!("traceparent" in meta || "tracestate" in meta || "baggage" in meta), text);
    // The splice's premise: a member put right after either brace (a byte offset) lands in what JSON.parse reads.
    const put = (at: number, empty: boolean): Record<string, unknown> =>
      JSON.parse(Buffer.concat([body.subarray(0, at + 1), Buffer.from(`"zz_probe":1${empty ? "" : ","}`), body.subarray(at + 1)]).toString("utf8")) as Record<
        string,
        unknown
      >;
    if (head.paramsAt >= 0) assert.equal((put(head.paramsAt, head.paramsEmpty).params as Record<string, unknown>).zz_probe, 1, text);
    if (head.metaAt >= 0) {
      const inMeta = (put(head.metaAt, head.metaEmpty).params as Record<string, Record<string, unknown>>)._meta!;
      assert.equal(inMeta.zz_probe, 1, text);
    }
  }
  // The mutations leave many bodies valid: the scan must read a good share of them.
  assert.ok(read > 3_000, `read ${read}`);
});
