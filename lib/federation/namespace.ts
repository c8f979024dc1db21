// The one namespace of a relay over several servers: each list merged under the names and
// URIs of ./naming.ts (./expose.ts renames), and the way back from an exposed name or URI to
// its server (the `Namespace` of ./resolve.ts). hub_bridge updates it as it lists live; the
// hub connector builds one per person from cached catalogs (gateway/hub-connector/namespace.ts).
import { exposedNames, exposeList, type ExposedName, type Labelled, type ListKind } from "./expose.ts";
import { unprefixUri, type Origin } from "./naming.ts";
import type { Namespace } from "./resolve.ts";

type Item = Record<string, unknown>;

/** One server's items of one list, in namespace order. */
export interface ServerItems {
  target: Labelled;
  items: readonly Item[];
}

export class MergedNamespace implements Namespace {
  readonly labels: ReadonlySet<string>;
  readonly lists: Record<ListKind, Item[]> = { tools: [], prompts: [], resources: [], resourceTemplates: [] };
  readonly #reserved: readonly Origin[];
  readonly #names: Record<"tools" | "prompts", Map<string, Origin>> = { tools: new Map(), prompts: new Map() };
  #exposedName: ExposedName = () => undefined;

  /** `reserved`: built-in tools (search, the job poller) whose names are taken before any server's. */
  constructor(labels: Iterable<string>, reserved: readonly Origin[] = []) {
    this.labels = new Set(labels);
    this.#reserved = reserved;
  }

  /**
   * One list anew from the servers that listed it. Names of a server in `keep` (one that
   * failed to list this time) stay routable until it lists again.
   */
  update(kind: ListKind, perServer: readonly ServerItems[], keep: ReadonlySet<string> = new Set()): Item[] {
    const { items, names } = exposeList(kind, perServer, kind === "tools" ? this.#reserved : []);
    this.lists[kind] = items;
    if (kind !== "tools" && kind !== "prompts") return items;
    for (const [exposed, origin] of this.#names[kind]) if (keep.has(origin.label) && !names.has(exposed)) names.set(exposed, origin);
    this.#names[kind] = names;
    if (kind === "tools") this.#exposedName = exposedNames(names);
    return items;
  }

  resolve(kind: "tools" | "prompts", name: string): Origin | undefined {
    return this.#names[kind].get(name);
  }

  exposedName(label: string, name: string): string | undefined {
    return this.#exposedName(label, name);
  }

  resolveUri(uri: string): { label: string; uri: string } | undefined {
    return unprefixUri(uri, this.labels) ?? undefined;
  }
}
