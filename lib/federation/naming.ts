// How names and URIs of several tools share one host-facing namespace. With one tool
// nothing is renamed. With several:
// - tools and prompts are exposed as `<label>_<name>`; when two end up equal (tool `a_b`
//   with `c`, tool `a` with `b_c`), the first in HUB_TOOLS order, then list order, keeps the
//   name and the next ones get `_2`, `_3`, ... appended. The same lists give the same names.
// - resource URIs and URI templates get the label as the first segment after the scheme:
//   `ui://demo/plot` from tool `mcpdemo` is `ui://mcpdemo/demo/plot`, `urn:x` is
//   `urn:mcpdemo/x`. The scheme is kept, so `ui://` apps stay `ui://`, and the original URI
//   is recovered exactly by removing the segment. Template holes after the scheme survive.
//   A gateway address in front (`https://hub/api/mcp/<tool>/ui://demo/plot`, as gateways
//   before issue 34 listed URIs) is dropped first, so the result matches the tool's `_meta`.
// This is the one URI rule of every relay (docs/decisions.md, "Resource URIs"): the gateway's
// per-tool route serves one tool and so leaves URIs as they are; hub_bridge and `/mcp` apply
// exposeUri to lists, reads, `_meta.ui.resourceUri`, resource links, embedded resources and
// resource notifications alike (./expose.ts, bridge/, gateway/hub-connector/messages.ts).
// Pure functions: the catalog applies them to lists and results.

export interface Origin {
  readonly label: string;
  readonly name: string;
}

/** Exposed name → origin, in the order given (labels in HUB_TOOLS order, names in list order). */
export function assignNames(origins: readonly Origin[]): Map<string, Origin> {
  const taken = new Map<string, Origin>();
  for (const origin of origins) {
    const base = `${origin.label}_${origin.name}`;
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.set(name, origin);
  }
  return taken;
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*:)(\/\/)?/;
// URIs with no scheme (or a template starting with a hole) are put under this one.
const FALLBACK_SCHEME = "hub-bridge:";

export function prefixUri(label: string, uri: string): string {
  const match = SCHEME.exec(uri);
  if (!match) return `${FALLBACK_SCHEME}${label}/${uri}`;
  return `${match[0]}${label}/${uri.slice(match[0].length)}`;
}

/** The label and original URI of an exposed one, or null when it names no configured label. */
export function unprefixUri(uri: string, labels: ReadonlySet<string>): { label: string; uri: string } | null {
  const match = SCHEME.exec(uri);
  if (!match) return null;
  const rest = uri.slice(match[0].length);
  const slash = rest.indexOf("/");
  if (slash < 0) return null;
  const label = rest.slice(0, slash);
  if (!labels.has(label)) return null;
  const tail = rest.slice(slash + 1);
  if (match[1] === FALLBACK_SCHEME && match[2] === undefined) return { label, uri: tail };
  return { label, uri: `${match[0]}${tail}` };
}

/** The URI inside the gateway's `<origin>/api/mcp/<tool>/` prefix, or the URI itself. */
export function stripGatewayPrefix(uri: string, tool: string): string {
  const marker = `/api/mcp/${tool}/`;
  if (!/^https?:\/\//.test(uri)) return uri;
  const at = uri.indexOf(marker);
  if (at < 0) return uri;
  const inner = uri.slice(at + marker.length);
  return SCHEME.test(inner) ? inner : uri;
}

/** The exposed form of a URI one tool gave: gateway prefix dropped, label inserted. */
export function exposeUri(target: { label: string; tool: string }, uri: string): string {
  return prefixUri(target.label, stripGatewayPrefix(uri, target.tool));
}
