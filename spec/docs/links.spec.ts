// Every relative link of README.md and docs/*.md leads somewhere: the file exists, and an
// `#anchor` names a heading of that page as GitHub renders it. Links inside code are not links.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { ROOT } from "../helpers/launcher-fixtures.ts";
import { pages } from "../helpers/pages.ts";

/** Text outside fenced blocks and code spans, where Markdown links live. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```$/gm, "").replace(/`[^`\n]*`/g, "");

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const m of markdown.replace(/^```[\s\S]*?^```$/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    found.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return found;
}

test("GitHub's anchor rule, as the link check applies it", () => {
  const sample = "# Signing in from Claude, ChatGPT, VS Code and Inspector\n## Typed arguments with `s`\n## MCP 2026-07-28\n## Notes\n## Notes\n";
  assert.deepEqual(
    [...anchors(sample)],
    ["signing-in-from-claude-chatgpt-vs-code-and-inspector", "typed-arguments-with-s", "mcp-2026-07-28", "notes", "notes-1"],
  );
});

test("every relative link and anchor in README.md and docs/ resolves", () => {
  const all = pages();
  const byPath = new Map(all.map((p) => [p.path, p.text]));
  const broken: string[] = [];
  let checked = 0;
  for (const page of all) {
    for (const m of prose(page.text).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
      checked++;
      const [file, anchor] = target.split("#") as [string, string | undefined];
      const path = file === "" ? page.path : normalize(join(dirname(page.path), file));
      if (!existsSync(join(ROOT, path))) {
        broken.push(`${page.path}: ${target} (no such file)`);
        continue;
      }
      if (anchor === undefined) continue;
      const text = byPath.get(path);
      if (text === undefined) broken.push(`${page.path}: ${target} (an anchor into a page that is not checked)`);
      else if (!anchors(text).has(anchor)) broken.push(`${page.path}: ${target} (no such heading)`);
    }
  }
  assert.ok(checked >= 10, "the pages link to each other");
  assert.deepEqual(broken, []);
});

test("every docs/ page is linked from the README, so none is an orphan", () => {
  const all = pages();
  const readme = prose(all.find((p) => p.path === "README.md")!.text);
  const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]!));
  assert.deepEqual(
    all.map((p) => p.path).filter((path) => path.startsWith("docs/") && !linked.has(path)),
    [],
  );
});
