// Who hears a caller's notification is one rule for both relays (route-moves.ts
// notifyServers): the same table sent through hub_bridge's relay and through /mcp, to the
// same two tool servers, is heard alike — `initialized` by none, a cancellation by the server
// running that request under the id it knows it by, one naming no request by none, anything
// else by every started server. The one difference is an input of the rule's: a cancellation
// of a request not running here goes to no server from hub_bridge (its calls all run in its
// process) and to every started tool from /mcp (the request may run on another replica).
import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { bridgeCaller, connectorCaller, LABELS, type Params, toolServers } from "./two-relays.ts";

type Relays = "bridge" | "mcp";
/** What each server heard of one notification: `server method params`, in server order. */
type Heard = (running: { server: string; id: unknown }) => string[];
const CASES: Array<{ what: string; method: string; params?: Params; heard: Record<Relays, Heard> }> = [
  { what: "initialized", method: "notifications/initialized", heard: { bridge: () => [], mcp: () => [] } },
  {
    what: "anything else",
    method: "notifications/roots/list_changed",
    heard: {
      bridge: () => LABELS.map((s) => `${s} notifications/roots/list_changed undefined`),
      mcp: () => LABELS.map((s) => `${s} notifications/roots/list_changed undefined`),
    },
  },
  {
    what: "a cancellation of a running call",
    method: "notifications/cancelled",
    params: { requestId: "running", reason: "changed my mind" },
    heard: {
      bridge: (r) => [`${r.server} notifications/cancelled ${JSON.stringify({ requestId: r.id, reason: "changed my mind" })}`],
      mcp: (r) => [`${r.server} notifications/cancelled ${JSON.stringify({ requestId: r.id, reason: "changed my mind" })}`],
    },
  },
  {
    what: "a cancellation of a request not running here",
    method: "notifications/cancelled",
    params: { requestId: "nowhere" },
    heard: { bridge: () => [], mcp: () => LABELS.map((s) => `${s} notifications/cancelled {"requestId":"nowhere"}`) },
  },
  { what: "a cancellation naming no request", method: "notifications/cancelled", params: { reason: "?" }, heard: { bridge: () => [], mcp: () => [] } },
];

for (const relay of ["bridge", "mcp"] as const) {
  test(`${relay}: a caller's notifications are heard as the relays' one rule says`, { timeout: 60_000 }, async (t) => {
    const { heard, events, urls } = await toolServers(t);
    const caller = await (relay === "bridge" ? bridgeCaller : connectorCaller)(t, urls);
    // Both servers started for this caller (/mcp starts a tool's session at its first use).
    for (const s of LABELS) await caller.call(`${s}_echo`, `echo-${s}`);
    let markers = 0;
    for (const c of CASES) {
      // A call running on beta, for the cancellation to find (its answer awaited at the end).
      const started = once(events, "started");
      const calling = caller.call("beta_wait", "running");
      const [running] = (await started) as [{ server: string; id: unknown }];
      const from = heard.length;
      await caller.notify(c.method, c.params);
      // A marker every server hears: once both heard it, whatever the case's notification reached has arrived.
      const marker = { _meta: { marker: ++markers } };
      await caller.notify("notifications/roots/list_changed", marker);
      while (heard.filter((h) => JSON.stringify(h.params) === JSON.stringify(marker)).length < LABELS.length) await once(events, "heard");
      const got = heard
        .slice(from)
        .filter((h) => JSON.stringify(h.params) !== JSON.stringify(marker))
        .map((h) => `${h.server} ${h.method} ${JSON.stringify(h.params)}`)
        .sort();
      assert.deepEqual(got, c.heard[relay](running), c.what);
      // The running call ends before the next case: cancelled now if the case did not.
      if (!got.some((line) => line.startsWith(`${running.server} notifications/cancelled`) && line.includes(JSON.stringify(running.id)))) {
        await caller.notify("notifications/cancelled", { requestId: "running" });
      }
      await calling;
    }
  });
}
