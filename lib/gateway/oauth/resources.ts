// RFC 8707 resources of this hub. A tool's resource is its MCP endpoint,
// `{hub}/api/mcp/{tool}/mcp`; any other spelling of the same tool (without `/mcp`, with a
// trailing slash, a deeper path) means that same resource, so it is stored, signed and
// compared in that one canonical form, the form the gateway checks audiences against.

/** The tool a resource URL of this hub names, if any. */
export function toolOfResource(publicUrl: string, resource: string): string | undefined {
  const prefix = `${publicUrl}/api/mcp/`;
  if (typeof resource !== "string" || !resource.startsWith(prefix)) return undefined;
  const tool = resource.slice(prefix.length).split(/[/?#]/, 1)[0];
  return tool ? tool : undefined;
}

/**
 * undefined for the whole hub, the canonical resource for one tool (or another path of the
 * hub, without a trailing slash), false when the URL is not on this hub.
 */
export function canonicalResource(publicUrl: string, resource: string): string | undefined | false {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (url.hash) return false;
  const normal = url.href.replace(/\/+$/, "");
  if (normal === publicUrl) return undefined;
  if (!normal.startsWith(`${publicUrl}/`)) return false;
  const tool = toolOfResource(publicUrl, normal);
  return tool === undefined ? normal : `${publicUrl}/api/mcp/${tool}/mcp`;
}
