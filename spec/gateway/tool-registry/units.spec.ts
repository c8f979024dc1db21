// The registry's parts on their own: gateway.json's `registry` section, and the rules a
// registered tool follows beyond gateway.json's (absolute paths, slurm's included).
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { parseRegistered } from "../../../lib/gateway/tool-registry/records.ts";

test("the registry section: allow-lists of accounts and variable names, each problem one line", () => {
  const config = parseGatewayConfig({ tools: {}, runAs: "nobody", registry: { runAs: ["nobody", "@person"], env: ["LANGUAGE"] } }, "/");
  assert.deepEqual(config.registry, { runAs: ["nobody", "@person"], env: ["LANGUAGE"], inherited: { runAs: "nobody" } });
  for (const [registry, message] of [
    [1, /^registry must be an object$/],
    [{ groups: [] }, /^registry\.groups is not a known key$/],
    [{ runAs: ["not an account"] }, /^registry\.runAs must be an array of OS account names or "@person"$/],
    [{ env: "HOME" }, /^registry\.env must be an array of environment variable names$/],
  ] as Array<[unknown, RegExp]>)
    assert.throws(() => parseGatewayConfig({ tools: {}, registry }, "/"), { message });
});

test("a registered tool: gateway.json's rules, absolute paths, and what the registry allows", () => {
  const config = parseGatewayConfig({ tools: {}, registry: { runAs: ["nobody"] } }, "/");
  const slurm = (workdir: string) => ({ revisions: { default: { slurm: { app: "/srv/app.py", workdir } } } });
  assert.equal(parseRegistered("s", slurm("/scratch/hub"), config).revisions.default!.kind, "slurm");
  assert.throws(() => parseRegistered("s", slurm("scratch"), config), {
    message: /^tools\.s\.revisions\.default\.slurm\.workdir must be an absolute path in a registered tool$/,
  });
  assert.throws(() => parseRegistered("s", { revisions: { default: { app: "" } } }, config), {
    message: /^tools\.s\.revisions\.default\.app must be a file path$/,
  });
  const inherited = parseRegistered("t", { revisions: { default: { command: ["/bin/true"] } } }, parseGatewayConfig({ tools: {}, runAs: "daemon" }, "/"));
  assert.equal((inherited.revisions.default as { runAs?: string }).runAs, "daemon", "the top-level runAs is inherited without an allow-list");
});
