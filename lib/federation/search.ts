// The built-in `hub_search_tools` of every relay over several servers (`/mcp`, hub_bridge):
// the merged tools ranked by BM25 (Robertson and Zaragoza 2009, k1 = 1.2, b = 0.75) over
// names and descriptions, so a client with a small context finds tools without listing
// hundreds of them. Names are split at `_`, `-`, `.` and camelCase humps, and count twice:
// a query word in the name says more than one in prose.
import type { Origin } from "./naming.ts";

type Item = Record<string, unknown>;

/** The built-in tool's place in the namespace: taken before any server's names. */
export const SEARCH_ORIGIN: Origin = { label: "hub", name: "search_tools" };
export const SEARCH_TOOL = "hub_search_tools";

export const SEARCH_DEFINITION = {
  name: SEARCH_TOOL,
  title: "Search this hub's tools",
  description:
    "Finds the tools of this hub that best match a query (words from their names and descriptions). Answers names and descriptions, best match first.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "What the tool should do, in a few words" },
      limit: { type: "integer", minimum: 1, maximum: 50, default: 10, description: "How many tools to answer" },
    },
    required: ["query"],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
} as const;

const K1 = 1.2;
const B = 0.75;

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "");
}

function terms(item: Item): string[] {
  const name = typeof item.name === "string" ? words(item.name) : [];
  const title = typeof item.title === "string" ? words(item.title) : [];
  const description = typeof item.description === "string" ? words(item.description) : [];
  return [...name, ...name, ...title, ...description];
}

interface Doc {
  item: Item;
  /** Its place in the list: equal scores keep list order. */
  order: number;
  counts: Map<string, number>;
  length: number;
}

/** What BM25 needs of a list, built once per list: each tool's term counts, and where each term occurs. */
export interface Index {
  docs: Doc[];
  avg: number;
  /** Term → the documents holding it: a query scores those alone, not every tool. */
  postings: Map<string, Doc[]>;
}

// Keyed by the list itself: a view's list is one array for as long as its catalogue is unchanged,
// and a new catalogue is a new array, so an index lives exactly as long as its catalogue.
const indexes = new WeakMap<readonly Item[], Index>();

/** The list's index, built at its first search and kept while the list lives. */
export function searchIndex(tools: readonly Item[]): Index {
  const kept = indexes.get(tools);
  if (kept) return kept;
  const docs: Doc[] = [];
  const postings = new Map<string, Doc[]>();
  for (const item of tools) {
    if (item.name === SEARCH_DEFINITION.name) continue;
    const counts = new Map<string, number>();
    for (const t of terms(item)) counts.set(t, (counts.get(t) ?? 0) + 1);
    let length = 0;
    for (const n of counts.values()) length += n;
    const doc = { item, order: docs.length, counts, length };
    docs.push(doc);
    for (const term of counts.keys()) {
      const list = postings.get(term);
      if (list) list.push(doc);
      else postings.set(term, [doc]);
    }
  }
  const avg = docs.reduce((a, d) => a + d.length, 0) / Math.max(1, docs.length);
  const index = { docs, avg, postings };
  indexes.set(tools, index);
  return index;
}

/** The `limit` best matches of `query` among `tools`, as {name, description}. */
export function searchTools(tools: readonly Item[], query: string, limit: number): Array<{ name: string; description?: string; score: number }> {
  const wanted = [...new Set(words(query))];
  if (wanted.length === 0) return [];
  const { docs, avg, postings } = searchIndex(tools);
  const n = docs.length;
  const scores = new Map<Doc, number>();
  for (const w of wanted) {
    const holding = postings.get(w) ?? [];
    const idf = Math.log(1 + (n - holding.length + 0.5) / (holding.length + 0.5));
    for (const doc of holding) {
      const f = doc.counts.get(w)!;
      const add = idf * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / Math.max(1, avg))));
      scores.set(doc, (scores.get(doc) ?? 0) + add);
    }
  }
  return [...scores]
    .filter(([, score]) => score > 0)
    .sort((a, b) => b[1] - a[1] || a[0].order - b[0].order)
    .slice(0, limit)
    .map(([{ item }, score]) => ({
      name: item.name as string,
      ...(typeof item.description === "string" ? { description: item.description } : {}),
      score: Math.round(score * 1000) / 1000,
    }));
}

/** The tools/call result of the built-in search; bad arguments are a tool error, as MCP asks. */
export function searchResult(tools: readonly Item[], args: unknown): Item {
  const a = typeof args === "object" && args !== null ? (args as Item) : {};
  if (typeof a.query !== "string" || a.query.length > 1000) {
    return { content: [{ type: "text", text: "query must be a string of at most 1000 characters" }], isError: true };
  }
  const limit = a.limit === undefined ? 10 : a.limit;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 50) {
    return { content: [{ type: "text", text: "limit must be a whole number from 1 to 50" }], isError: true };
  }
  const found = searchTools(tools, a.query, limit);
  // The text is the structured result's JSON, as every tool's object result is.
  const result = { tools: found };
  return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
}
