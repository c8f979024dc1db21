// The console's page script parses as one whole; its parts are JavaScript in strings, so no
// compiler checks them (their pure parts are run in spec/console/client).
import { test } from "node:test";
import assert from "node:assert/strict";
import { consoleScript } from "../../lib/console/script.ts";

test("the whole script is valid JavaScript with no template holes left", () => {
  assert.doesNotThrow(() => new Function(consoleScript));
  assert.ok(!consoleScript.includes("${"));
});
