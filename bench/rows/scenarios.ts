// The request scenarios every request row is made of: the baseline's JSON-RPC call and
// hubmcp's three ways to call a tool, each with its target and what a right answer is.
import { expectSum, targets } from "../requests.ts";
import type { Target } from "../load.ts";
import type { ServerKind } from "../servers/types.ts";
import { TARGETS } from "../targets.ts";

export interface Scenario {
  name: string;
  kind: ServerKind;
  /** `sessionId` is an initialized session on that server (hubmcp only). */
  target(port: number, sessionId: string): Target;
  expect(body: unknown): boolean;
  /** Least req/s as a share of the baseline's; null for the baseline itself. */
  minRatio: number | null;
}

export const SCENARIOS: readonly Scenario[] = [
  { name: "baseline: bare node:http", kind: "baseline", target: (port) => targets.callAdd(port), expect: expectSum.rpc, minRatio: null },
  { name: "POST /mcp tools/call, no session", kind: "hubmcp", target: (port) => targets.callAdd(port), expect: expectSum.rpc, minRatio: TARGETS.rpcRatio },
  { name: "POST /mcp tools/call, in session", kind: "hubmcp", target: targets.sessionCallAdd, expect: expectSum.rpc, minRatio: TARGETS.sessionRatio },
  { name: "POST /tools/add (REST)", kind: "hubmcp", target: (port) => targets.restAdd(port), expect: expectSum.rest, minRatio: TARGETS.restRatio },
];
