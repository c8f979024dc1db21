// How the lists and results of several tools are shown in one namespace (names and URIs
// of ./naming.ts), shared by hub_bridge and the gateway's hub connector so both expose
// exactly the same names. Pure: callers fetch, these functions rename.
import { isRecord } from "../util/guards.ts";
import { assignNames, exposeUri, type Origin } from "./naming.ts";
import { renameToolRefs } from "./references.ts";

export type ListKind = "tools" | "prompts" | "resources" | "resourceTemplates";

// A Map, never a plain object: the method is the client's, and `constructor` or `__proto__`
// must not find something Object.prototype has.
const LIST_METHODS: ReadonlyMap<string, ListKind> = new Map([
  ["tools/list", "tools"],
  ["prompts/list", "prompts"],
  ["resources/list", "resources"],
  ["resources/templates/list", "resourceTemplates"],
]);

/** The list a method asks for, or undefined for any other method. */
export function listKindOf(method: string): ListKind | undefined {
  return LIST_METHODS.get(method);
}

export const METHOD_OF: Record<ListKind, string> = {
  tools: "tools/list",
  prompts: "prompts/list",
  resources: "resources/list",
  resourceTemplates: "resources/templates/list",
};

/** What exposing needs to know of a tool: its label (name prefix) and its hub name. */
export interface Labelled {
  readonly label: string;
  readonly tool: string;
}

type Item = Record<string, unknown>;

/** `_meta.ui.resourceUri` (and the older `ui/resourceUri`) point at the exposed App resource. */
export function rewriteMeta(target: Labelled, meta: unknown): unknown {
  if (!isRecord(meta)) return meta;
  const out: Item = { ...meta };
  if (typeof out["ui/resourceUri"] === "string") out["ui/resourceUri"] = exposeUri(target, out["ui/resourceUri"]);
  if (isRecord(out.ui) && typeof out.ui.resourceUri === "string") out.ui = { ...out.ui, resourceUri: exposeUri(target, out.ui.resourceUri) };
  return out;
}

/** Resource links and embedded resources in a tool result, and `contents` of a read, get their exposed URIs. */
export function rewriteResultUris(target: Labelled, result: Item): Item {
  const out = { ...result };
  if (Array.isArray(out.content)) {
    out.content = out.content.map((block: unknown) => {
      if (!isRecord(block)) return block;
      if (block.type === "resource_link" && typeof block.uri === "string") return { ...block, uri: exposeUri(target, block.uri) };
      if (block.type === "resource" && isRecord(block.resource) && typeof block.resource.uri === "string") {
        return { ...block, resource: { ...block.resource, uri: exposeUri(target, block.resource.uri) } };
      }
      return block;
    });
  }
  if (Array.isArray(out.contents)) {
    out.contents = out.contents.map((item: unknown) => (isRecord(item) && typeof item.uri === "string" ? { ...item, uri: exposeUri(target, item.uri) } : item));
  }
  return out;
}

/** A tool's name as the caller sees it, from the exposed name → origin table; undefined when it is not listed. */
export type ExposedName = (label: string, name: string) => string | undefined;

/** The way from an origin back to its exposed name, for one `Exposed.names` table. */
export function exposedNames(names: ReadonlyMap<string, Origin>): ExposedName {
  const back = new Map<string, string>();
  for (const [exposed, origin] of names) back.set(`${origin.label}\0${origin.name}`, exposed);
  return (label, name) => back.get(`${label}\0${name}`);
}

/** A tool's call result as the relay's caller sees it: its URIs exposed, the tool names its text states renamed. */
export function exposeToolResult(target: Labelled, result: Item, exposedName: ExposedName): Item {
  return renameToolRefs(rewriteResultUris(target, result), (name) => exposedName(target.label, name));
}

export interface Exposed {
  items: Item[];
  /** Exposed tool or prompt name → its origin (empty for resources and templates). */
  names: Map<string, Origin>;
}

/**
 * One merged list. `perTool` is in namespace order (HUB_TOOLS order for the bridge, the
 * gateway config's order for the connector); `reserved` names are taken first, so an item
 * that would collide with one gets the `_2` suffix like any other collision.
 */
export function exposeList(kind: ListKind, perTool: ReadonlyArray<{ target: Labelled; items: readonly Item[] }>, reserved: readonly Origin[] = []): Exposed {
  if (kind === "tools" || kind === "prompts") {
    const origins = perTool.flatMap(({ target, items }) =>
      items.filter((i) => typeof i.name === "string").map((item) => ({ label: target.label, name: item.name as string, item, target })),
    );
    const assigned = assignNames([...reserved, ...origins]);
    const names = new Map<string, Origin>();
    const items: Item[] = [];
    for (const [exposed, origin] of assigned) {
      if (reserved.includes(origin)) continue;
      const { item, target } = origin as (typeof origins)[number];
      names.set(exposed, { label: target.label, name: origin.name });
      items.push(kind === "tools" && "_meta" in item ? { ...item, name: exposed, _meta: rewriteMeta(target, item._meta) } : { ...item, name: exposed });
    }
    if (kind === "prompts") return { items, names };
    // A description may name other tools of its server (stated as for results): renamed once every name is known.
    const rename = exposedNames(names);
    return { items: items.map((item) => renameToolRefs(item, (name) => rename(names.get(item.name as string)!.label, name))), names };
  }
  const field = kind === "resources" ? "uri" : "uriTemplate";
  const items = perTool.flatMap(({ target, items }) =>
    items.map((item) => (typeof item[field] === "string" ? { ...item, [field]: exposeUri(target, item[field] as string) } : item)),
  );
  return { items, names: new Map() };
}
