// The user documentation as the doc specs read it: README.md and every docs/*.md page,
// each with its path relative to the repository root and its text.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./launcher-fixtures.ts";

export interface Page {
  /** "README.md" or "docs/<name>.md". */
  path: string;
  text: string;
}

export function pages(): Page[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs].map((path) => ({ path, text: readFileSync(join(ROOT, path), "utf8") }));
}

/** Fenced blocks of one info string (`ts`, `json`, `sh`, `nginx`), with the line of their fence. */
export function fenced(markdown: string, lang: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const fence = new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "gm");
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) {
    blocks.push({ line: markdown.slice(0, m.index).split("\n").length, code: m[1]! });
  }
  return blocks;
}
