// What one person sees at /mcp: the tools whose groups they belong to (in the gateway
// config's order), each listed from its catalog, merged under hub_bridge's names
// (../../federation), with the built-in search tool first. Names of tools the person may
// not use are simply absent, so resolving them fails exactly like a name that never existed.
import { exposedNames, exposeList, type ExposedName, type ListKind } from "../../federation/expose.ts";
import { unprefixUri, type Origin } from "../../federation/naming.ts";
import type { Namespace } from "../../federation/resolve.ts";
import type { GatewayConfig, ToolSpec } from "../config/gateway-config.ts";
import type { Principal } from "../contracts/interfaces.ts";
import type { Lists } from "./catalogs.ts";
import { isJobPoller, JOBS_ORIGIN, JOBS_TOOL } from "./jobs.ts";
import { JOB_RESULT_TOOL } from "../../tasks/views.ts";

type Item = Record<string, unknown>;

/** The built-in tool's place in the namespace: taken before any tool's names. */
export const SEARCH_ORIGIN: Origin = { label: "hub", name: "search_tools" };
export const SEARCH_TOOL = "hub_search_tools";

export function mayUse(spec: ToolSpec, principal: Principal): boolean {
  return spec.groups.length === 0 || spec.groups.some((g) => principal.groups.includes(g));
}

/** The tools a person may use, in config order. */
export function toolsFor(config: GatewayConfig, principal: Principal): string[] {
  return Object.keys(config.tools).filter((tool) => mayUse(config.tools[tool]!, principal));
}

export class PersonView implements Namespace {
  readonly labels: ReadonlySet<string>;
  readonly lists: Record<ListKind, Item[]>;
  readonly #names: Record<"tools" | "prompts", Map<string, Origin>>;
  readonly #exposedName: ExposedName;

  /** `listed`: each usable tool's lists, in namespace order (tools that failed to list left out). */
  /** False when a usable tool could not be listed. */
  readonly complete: boolean;
  /** Whether a tool has async tools, whose jobs hub_get_job_result polls. */
  readonly hasJobs: boolean;

  constructor(usable: readonly string[], listed: ReadonlyArray<{ tool: string; lists: Lists }>, complete = true) {
    this.complete = complete;
    this.labels = new Set(usable);
    const per = (kind: ListKind) => listed.map(({ tool, lists }) => ({ target: { label: tool, tool }, items: lists[kind] }));
    // Each server's job poller is the connector's one (./jobs.ts): not listed per tool.
    const polled = new Set(listed.filter(({ lists }) => lists.tools.some((t) => isJobPoller(t, lists.tools))).map(({ tool }) => tool));
    this.hasJobs = polled.size > 0;
    const ownTools = listed.map(({ tool, lists }) => ({
      target: { label: tool, tool },
      items: polled.has(tool) ? lists.tools.filter((t) => !isJobPoller(t, lists.tools)) : lists.tools,
    }));
    const tools = exposeList("tools", ownTools, [SEARCH_ORIGIN, JOBS_ORIGIN]);
    const prompts = exposeList("prompts", per("prompts"));
    this.#names = { tools: tools.names, prompts: prompts.names };
    const exposed = exposedNames(tools.names);
    this.#exposedName = (label, name) => (name === JOB_RESULT_TOOL && polled.has(label) ? JOBS_TOOL : exposed(label, name));
    this.lists = {
      tools: tools.items,
      prompts: prompts.items,
      resources: exposeList("resources", per("resources")).items,
      resourceTemplates: exposeList("resourceTemplates", per("resourceTemplates")).items,
    };
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
