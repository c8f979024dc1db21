// One stand-in gateway with the demo and lab apps for a whole spec file, started before its
// first test and stopped after its last, and the environment hub_bridge reads to reach it.
import { after, before } from "node:test";
import { server as demo } from "../../fixtures/demo/app.ts";
import { server as lab } from "../../fixtures/bridge/lab.ts";
import { serveApps, type StandIn } from "./stand-in-gateway.ts";

/** The stand-in, filled in before the file's first test runs. */
export function standInForFile(): StandIn {
  const hub = {} as StandIn;
  const cleanups: Array<() => unknown> = [];
  before(async () => {
    Object.assign(hub, await serveApps({ after: (fn) => void cleanups.push(fn) }, { mcpdemo: demo, lab }));
  });
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });
  return hub;
}

export function bridgeEnv(hub: StandIn, tools: string, extra: Record<string, string> = {}): Record<string, string> {
  return { HUB_TOKEN: hub.token, HUB_API: hub.url, HUB_TOOLS: tools, ...extra };
}

/** The first text block of a tool result. */
export function firstText(result: Record<string, unknown>): string {
  return (result.content as Array<{ text?: string }>)[0]?.text ?? "";
}

/** A real hub gateway's config with the demo app open to all and the lab app to `staff`. */
export const DEMO_AND_LAB_GATEWAY = {
  tools: {
    mcpdemo: { revisions: { default: { app: "fixtures/demo/app.ts" } } },
    lab: { groups: ["staff"], revisions: { default: { app: "fixtures/bridge/lab.ts" } } },
  },
};
