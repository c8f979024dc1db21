// docs/gateway.md's "Config reference" table and gateway.json's declaration agree: every key
// the schema knows is documented, every documented key exists, and a default the table gives
// is the schema's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gatewayConfigSchema } from "../../../lib/gateway/config/gateway-config.ts";
import { isRecord } from "../../../lib/util/guards.ts";

const DOC = new URL("../../../docs/gateway.md", import.meta.url);

/** Every key path of the schema (`tools.*.revisions.*.app`, `oauth.assertionIssuers[].issuer`) and its default. */
function keys(node: unknown, path: string, out: Map<string, unknown>): Map<string, unknown> {
  if (!isRecord(node)) return out;
  if (Array.isArray(node.anyOf)) for (const member of node.anyOf) keys(member, path, out);
  if (isRecord(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      const at = path ? `${path}.${name}` : name;
      out.set(at, isRecord(child) ? child.default : undefined);
      keys(child, at, out);
    }
  } else if (node.type === "object" && isRecord(node.additionalProperties)) keys(node.additionalProperties, `${path}.*`, out);
  if (node.type === "array") keys(node.items, `${path}[]`, out);
  return out;
}

/** The table's rows: key (names in capitals stand for any name), and the default when given. */
function documented(markdown: string): Map<string, string> {
  const section = markdown.split("### Config reference")[1]?.split(/\n#{2,3} /)[0];
  assert.ok(section, 'docs/gateway.md has a "### Config reference" section');
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `([^`]+)` \|([^|]*)\|/gm)) {
    const key = m[1]!.replace(/\.[A-Z]+(?=\.|$)/g, ".*");
    assert.ok(!rows.has(key), `${key} is documented once`);
    rows.set(key, m[2]!.trim().replace(/^`|`$/g, ""));
  }
  return rows;
}

test("docs/gateway.md's config reference lists every key of gateway.json's schema, and only those", () => {
  const schema = keys(gatewayConfigSchema.toJSON(), "", new Map());
  const table = documented(readFileSync(DOC, "utf8"));
  assert.ok(schema.size > 50 && schema.has("limits.idleMinutes") && schema.has("oauth.assertionIssuers[].issuer"));
  assert.deepEqual(
    [...schema.keys()].filter((k) => !table.has(k)),
    [],
    "keys the table does not document",
  );
  assert.deepEqual(
    [...table.keys()].filter((k) => !schema.has(k)),
    [],
    "documented keys gateway.json does not have",
  );
  for (const [key, given] of table) {
    if (given === "") continue;
    assert.deepEqual(JSON.parse(given), schema.get(key), `${key}'s documented default`);
  }
});
