// `slurm` revisions in gateway.json: checked key by key, each problem one line naming the key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkAppFiles, ConfigError, parseGatewayConfig } from "../../lib/gateway/config.ts";
import { tempDir } from "../helpers/launcher-fixtures.ts";

const withSlurm = (slurm: unknown, more: Record<string, unknown> = {}) => ({ tools: { sim: { revisions: { default: { slurm, ...more } } } } });

test("a slurm revision: app and workdir resolved against the config's folder, options as given", () => {
  const config = parseGatewayConfig(
    withSlurm({ app: "app.ts", workdir: "jobs", partition: "debug", time: "01:00:00", sbatch: ["--mem=2G", "--cpus-per-task=2"] }),
    "/hub",
  );
  assert.deepEqual(config.tools.sim!.revisions.default, {
    kind: "slurm",
    slurm: { app: "/hub/app.ts", workdir: "/hub/jobs", partition: "debug", time: "01:00:00", sbatch: ["--mem=2G", "--cpus-per-task=2"] },
  });
  const bare = parseGatewayConfig({ runAs: "hubtools", ...withSlurm({ app: "/a.ts", workdir: "/w" }) }, "/hub");
  assert.deepEqual(bare.tools.sim!.revisions.default, { kind: "slurm", slurm: { app: "/a.ts", workdir: "/w", sbatch: [] }, runAs: "hubtools" });
});

test("a slurm revision's problems are named by key, values never echoed", () => {
  const cases: Array<[unknown, string]> = [
    [withSlurm("x"), "tools.sim.revisions.default.slurm must be an object"],
    [withSlurm({ app: "a.ts" }), "tools.sim.revisions.default.slurm.workdir must be a folder path (one the compute nodes see too)"],
    [withSlurm({ workdir: "w" }), "tools.sim.revisions.default.slurm.app must be a file path"],
    [withSlurm({ app: "a.ts", workdir: "w", nodes: 2 }), "tools.sim.revisions.default.slurm.nodes is not a known key"],
    [
      withSlurm({ app: "a.ts", workdir: "w", partition: "de bug; rm" }),
      "tools.sim.revisions.default.slurm.partition must be a Slurm name or time, without spaces",
    ],
    [withSlurm({ app: "a.ts", workdir: "w", time: 60 }), "tools.sim.revisions.default.slurm.time must be a Slurm name or time, without spaces"],
    [
      withSlurm({ app: "a.ts", workdir: "w", sbatch: ["mem=2G"] }),
      'tools.sim.revisions.default.slurm.sbatch must be an array of sbatch options, each starting with "-" ("--mem=2G")',
    ],
    [
      withSlurm({ app: "a.ts", workdir: "w", sbatch: "--mem=2G" }),
      'tools.sim.revisions.default.slurm.sbatch must be an array of sbatch options, each starting with "-" ("--mem=2G")',
    ],
    [withSlurm({ app: "a.ts", workdir: "w" }, { app: "b.ts" }), 'tools.sim.revisions.default must have exactly one of "app", "url", "command", "slurm"'],
  ];
  for (const [value, message] of cases) {
    assert.throws(
      () => parseGatewayConfig(value, "/hub"),
      (err: unknown) => err instanceof ConfigError && err.message === message,
      message,
    );
  }
});

test("at start, a slurm revision's app must be a file and its workdir a folder", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "app.ts"), "");
  mkdirSync(join(dir, "jobs"));
  await checkAppFiles(parseGatewayConfig(withSlurm({ app: "app.ts", workdir: "jobs" }), dir));
  await assert.rejects(checkAppFiles(parseGatewayConfig(withSlurm({ app: "none.ts", workdir: "jobs" }), dir)), {
    message: `tools.sim.revisions.default.slurm.app names ${join(dir, "none.ts")}, which does not exist`,
  });
  await assert.rejects(checkAppFiles(parseGatewayConfig(withSlurm({ app: "app.ts", workdir: "none" }), dir)), {
    message: `tools.sim.revisions.default.slurm.workdir names ${join(dir, "none")}, which does not exist`,
  });
  await assert.rejects(checkAppFiles(parseGatewayConfig(withSlurm({ app: "app.ts", workdir: "app.ts" }), dir)), {
    message: `tools.sim.revisions.default.slurm.workdir names ${join(dir, "app.ts")}, which is not a folder`,
  });
});
