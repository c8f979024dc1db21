// The SKILL.md frontmatter reader: the YAML subset skill authors write, rendered as JSON,
// and a clear error (never the file's text) for anything outside it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseFrontmatter } from "../../lib/registry/frontmatter.ts";

test("frontmatter: quoted strings, block scalars, lists, nested maps; unsupported YAML is an error", () => {
  assert.deepEqual(
    parseFrontmatter(
      [
        "---",
        "name: x",
        "title: 'It''s'",
        'quoted: "a: b"',
        "count: 3",
        "flag: true",
        "empty:",
        "literal: |",
        "  line one",
        "  line two",
        "tags:",
        "  - a",
        "  - 'b'",
        "metadata:",
        "  nested:",
        "    deep: yes # a comment",
        "---",
        "body",
      ].join("\n"),
    ),
    {
      name: "x",
      title: "It's",
      quoted: "a: b",
      count: 3,
      flag: true,
      empty: null,
      literal: "line one\nline two\n",
      tags: ["a", "b"],
      metadata: { nested: { deep: "yes" } },
    },
  );
  assert.throws(() => parseFrontmatter("---\nname: x\nname: y\n---\n"), /duplicate key name/);
  assert.throws(() => parseFrontmatter("---\nname: &anchor x\n---\n"), /unsupported YAML/);
  assert.throws(() => parseFrontmatter("---\nname: x\n"), /no closing/);
  assert.throws(() => parseFrontmatter("---\n\tname: x\n---\n"), /tabs/);
  assert.throws(() => parseFrontmatter("---\nname: x\n   stray: y\n---\n"), /indentation/);
  assert.throws(() => parseFrontmatter('---\nname: "open\n---\n'), /double-quoted/);
});
