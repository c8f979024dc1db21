// JSON strings written straight into a buffer: byte for byte what JSON.stringify's text is in
// UTF-8, within the bound, for ASCII, escapes, other scripts and lone surrogates.
import assert from "node:assert/strict";
import { test } from "node:test";
import { jsonStringBound, putJsonString } from "../../lib/util/json-bytes.ts";

const UNITS = ["a", "Z", "0", " ", "~", "\x7f", '"', "\\", "/", "\n", "\t", "\x00", "\x1f", "é", "€", "😀", "\ud800", "\udfff", "\u2028"];

test("writes what JSON.stringify writes, never past its bound", () => {
  let seed = 0x9e3779b9;
  const next = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  for (let n = 0; n < 5_000; n++) {
    let text = "";
    for (let k = Math.floor(next() * 12); k > 0; k--) text += UNITS[Math.floor(next() * UNITS.length)];
    const bound = jsonStringBound(text);
    // A marker after the bound: never overwritten.
    const buf = Buffer.alloc(3 + bound + 1, 0xaa);
    const end = putJsonString(buf, 3, text);
    assert.ok(end <= 3 + bound, JSON.stringify(text));
    assert.equal(buf.toString("utf8", 3, end), JSON.stringify(text));
    assert.equal(buf[3 + bound], 0xaa);
  }
});
