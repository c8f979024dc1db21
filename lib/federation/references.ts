// Tool names a tool server writes into text a model reads ("call `get_job_result` with this
// job_id"). Behind a relay that renames tools such a name would send the model to a tool that
// does not exist, so the server states them: `_meta["io.hubmcp/tool-refs"]` lists the names,
// and each mention in the text is the name between backticks. A relay that renames tools
// writes every listed mention, and the list itself, under the name its caller sees, so a
// second relay in front of the first renames again. Text is never searched for bare words:
// a tool called `status` must not rewrite a JSON key.
import { TOOL_REFS } from "../mcp/tool-result.ts";
import { isRecord } from "../util/guards.ts";

/** The name a caller of the relay sees for one of this tool server's names; undefined leaves it. */
export type RenameTool = (name: string) => string | undefined;

type Item = Record<string, unknown>;

function renamedText(text: string, renames: ReadonlyMap<string, string>): string {
  return text.replace(/`([^`\n]{1,128})`/g, (whole, name: string) => {
    const to = renames.get(name);
    return to === undefined ? whole : `\`${to}\``;
  });
}

/**
 * `value` (a tool result, or a tools/list entry) with the names its `_meta` lists renamed in
 * its text: the result's text blocks, the entry's description. Anything without the list is
 * returned as it is.
 */
export function renameToolRefs(value: Item, rename: RenameTool): Item {
  const meta = value._meta;
  if (!isRecord(meta) || !Array.isArray(meta[TOOL_REFS])) return value;
  const renames = new Map<string, string>();
  for (const name of meta[TOOL_REFS]) {
    const to = typeof name === "string" ? rename(name) : undefined;
    if (to !== undefined && to !== name) renames.set(name as string, to);
  }
  if (renames.size === 0) return value;
  const out: Item = { ...value, _meta: { ...meta, [TOOL_REFS]: meta[TOOL_REFS].map((n: unknown) => (typeof n === "string" ? (renames.get(n) ?? n) : n)) } };
  if (typeof out.description === "string") out.description = renamedText(out.description, renames);
  if (Array.isArray(out.content)) {
    out.content = out.content.map((block: unknown) =>
      isRecord(block) && block.type === "text" && typeof block.text === "string" ? { ...block, text: renamedText(block.text, renames) } : block,
    );
  }
  return out;
}
