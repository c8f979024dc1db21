// What an MCP Apps host does to find a tool's App, every way hosts are known to match: the
// ext-apps SDK's getToolUiResourceUri (which refuses anything but a `ui://` URI), the URI
// found verbatim in resources/list, the read answering under the URI asked for, and the
// seed's canonical form (the text from the last non-http scheme marker on) of each.
import assert from "node:assert/strict";
import { getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";

/** ext-apps' own lookup of a tool's App URI (its Tool type is another SDK copy's: any tool object will do). */
export function appUriOf(tool: object): string | undefined {
  return getToolUiResourceUri(tool as Parameters<typeof getToolUiResourceUri>[0]);
}

/** The seed's rule (interface spec C.8): keep the text from the last non-http `scheme://` on. */
export function canonicalUri(uri: string): string {
  const markers = [...uri.matchAll(/([A-Za-z][A-Za-z0-9+.-]*):\/\//g)].filter((m) => !/^https?$/i.test(m[1]!));
  const last = markers.at(-1);
  return last ? uri.slice(last.index) : uri;
}

/** Asserts a host finds the App of `tool` among `resources` and in `read` (the read of its URI); returns the URI. */
export function assertAppFound(
  tool: object,
  resources: ReadonlyArray<{ uri: string }>,
  read: { contents: ReadonlyArray<{ uri: string; mimeType?: string }> },
): string {
  const uri = appUriOf(tool);
  assert.ok(uri, "the tool names an App");
  assert.ok(
    resources.some((r) => r.uri === uri),
    `${uri} is listed verbatim`,
  );
  assert.equal(read.contents[0]?.uri, uri, "the read answers under the URI asked for");
  assert.equal(read.contents[0]?.mimeType, "text/html;profile=mcp-app");
  assert.equal(canonicalUri(uri), uri, "canonical already");
  assert.equal(resources.filter((r) => canonicalUri(r.uri) === uri).length, 1, "one listed resource canonicalizes to it");
  return uri;
}
