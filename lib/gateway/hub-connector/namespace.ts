// What one person sees at /mcp: the tools whose groups they belong to (in the gateway
// config's order), each listed from its catalog, merged in the relays' one namespace
// (../../federation/namespace.ts), with the built-in search tool first. Names of tools the person may
// not use are simply absent, so resolving them fails exactly like a name that never existed.
import type { ListKind } from "../../federation/expose.ts";
import { MergedNamespace } from "../../federation/namespace.ts";
import { SEARCH_ORIGIN } from "../../federation/search.ts";
import type { GatewayConfig, ToolSpec } from "../config/gateway-config.ts";
import type { Principal } from "../contracts/interfaces.ts";
import type { Lists } from "./catalogs.ts";
import { isJobPoller, JOBS_ORIGIN, JOBS_TOOL } from "./jobs.ts";
import { JOB_RESULT_TOOL } from "../../tasks/views.ts";

const KINDS: readonly ListKind[] = ["tools", "prompts", "resources", "resourceTemplates"];

export function mayUse(spec: ToolSpec, principal: Principal): boolean {
  return spec.groups.length === 0 || spec.groups.some((g) => principal.groups.includes(g));
}

/** The tools a person may use, in config order. */
export function toolsFor(config: GatewayConfig, principal: Principal): string[] {
  return Object.keys(config.tools).filter((tool) => mayUse(config.tools[tool]!, principal));
}

export class PersonView extends MergedNamespace {
  /** False when a usable tool could not be listed. */
  readonly complete: boolean;
  /** Whether a tool has async tools, whose jobs hub_get_job_result polls. */
  readonly hasJobs: boolean;
  readonly #polled: ReadonlySet<string>;

  /** `listed`: each usable tool's lists, in namespace order (tools that failed to list left out). */
  constructor(usable: readonly string[], listed: ReadonlyArray<{ tool: string; lists: Lists }>, complete = true) {
    super(usable, [SEARCH_ORIGIN, JOBS_ORIGIN]);
    this.complete = complete;
    // Each server's job poller is the connector's one (./jobs.ts): not listed per tool.
    const polled = new Set(listed.filter(({ lists }) => lists.tools.some((t) => isJobPoller(t, lists.tools))).map(({ tool }) => tool));
    this.#polled = polled;
    this.hasJobs = polled.size > 0;
    for (const kind of KINDS) {
      const per = listed.map(({ tool, lists }) => ({
        target: { label: tool, tool },
        items: kind === "tools" && polled.has(tool) ? lists.tools.filter((t) => !isJobPoller(t, lists.tools)) : lists[kind],
      }));
      this.update(kind, per);
    }
  }

  override exposedName(label: string, name: string): string | undefined {
    return name === JOB_RESULT_TOOL && this.#polled.has(label) ? JOBS_TOOL : super.exposedName(label, name);
  }
}
