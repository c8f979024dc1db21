// The blocks of docs/gateway.md's "Signing people in with your hub's identity", so the
// identity specs run what the page tells an operator to write, with only the spec's own
// addresses, ports and files put in.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fenced } from "../../helpers/pages.ts";

const ROOT = join(import.meta.dirname, "..", "..", "..");

function section(): string {
  const page = readFileSync(join(ROOT, "docs", "gateway.md"), "utf8");
  const start = page.indexOf("## Signing people in with your hub's identity");
  const end = page.indexOf("\n## ", start + 1);
  if (start < 0) throw new Error("docs/gateway.md has no identity section");
  return page.slice(start, end);
}

/** The `oauth` section of the page's json block that has `key` (identity, frontEnd, assertionIssuers). */
export function documentedOAuth<T>(key: string): T {
  for (const block of fenced(section(), "json")) {
    const oauth = (JSON.parse(`{${block.code}}`) as { oauth: Record<string, unknown> }).oauth;
    if (key in oauth) return oauth[key] as T;
  }
  throw new Error(`no documented oauth.${key}`);
}

/** The page's nginx location block. */
export function documentedNginx(): string {
  const [block] = fenced(section(), "nginx");
  if (!block) throw new Error("no documented nginx block");
  return block.code;
}
