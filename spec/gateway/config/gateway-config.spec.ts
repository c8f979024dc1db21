// `slurm` revisions in gateway.json: checked key by key, each problem one line naming the key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkAppFiles, ConfigError, parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { tempDir } from "../../helpers/launcher-fixtures.ts";

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
    [
      withSlurm({ app: "a.ts", workdir: "w" }, { app: "b.ts" }),
      'tools.sim.revisions.default must have exactly one of "app", "rappture", "stdio", "url", "command", "slurm"',
    ],
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

const withRevision = (revision: unknown, tool: Record<string, unknown> = {}) => ({ tools: { fermi: { ...tool, revisions: { default: revision } } } });

test("a rappture revision: the tool.xml resolved like an app, with isolation, runAs, env and Slurm as for an app", () => {
  const parsed = (revision: unknown, tool?: Record<string, unknown>) => parseGatewayConfig(withRevision(revision, tool), "/hub").tools.fermi!.revisions.default;
  assert.deepEqual(parsed({ rappture: "fermi/tool.xml" }), { kind: "rappture", rappture: "/hub/fermi/tool.xml" });
  assert.deepEqual(parsed({ rappture: "/t/tool.xml", isolation: "shared" }, { runAs: "tools", env: ["LICENSE"] }), {
    kind: "rappture",
    rappture: "/t/tool.xml",
    isolation: "shared",
    runAs: "tools",
    env: ["LICENSE"],
  });
  assert.deepEqual(parsed({ slurm: { rappture: "t/tool.xml", workdir: "/w" } }), {
    kind: "slurm",
    slurm: { rappture: "/hub/t/tool.xml", workdir: "/w", sbatch: [] },
  });
  for (const [revision, line] of [
    [{ rappture: "" }, "tools.fermi.revisions.default.rappture must be the path of a Rappture tool.xml"],
    [{ rappture: ["a"] }, "tools.fermi.revisions.default.rappture must be the path of a Rappture tool.xml"],
    [{ rappture: "t.xml", app: "a.ts" }, 'tools.fermi.revisions.default must have exactly one of "app", "rappture", "stdio", "url", "command", "slurm"'],
    [{ rappture: "t.xml", isolation: "solo" }, 'tools.fermi.revisions.default.isolation must be "process" or "shared"'],
    [{ rappture: "t.xml", timeout: 5 }, "tools.fermi.revisions.default.timeout is not a known key"],
    [{ slurm: { rappture: "t.xml", app: "a.ts", workdir: "/w" } }, 'tools.fermi.revisions.default.slurm must have one of "app", "rappture", not both'],
  ] as const) {
    assert.throws(
      () => parseGatewayConfig(withRevision(revision), "/hub"),
      (e: unknown) => e instanceof ConfigError && e.message === line,
      line,
    );
  }
  assert.throws(() => parseGatewayConfig(withRevision({ rappture: "t.xml", isolation: "shared" }, { runAs: "@person" }), "/hub"), {
    message: 'tools.fermi.revisions.default.isolation cannot be "shared" when runAs is "@person"',
  });
});

test("at start, a served tool.xml or app must exist, and neither it nor its folder be writable by every account", async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, "fermi"));
  writeFileSync(join(dir, "fermi", "tool.xml"), readFileSync(join(import.meta.dirname, "../../../fixtures/rappture/fermi/tool.xml")));
  writeFileSync(join(dir, "app.ts"), "");
  await checkAppFiles(parseGatewayConfig(withRevision({ rappture: "fermi/tool.xml" }), dir));
  await assert.rejects(checkAppFiles(parseGatewayConfig(withRevision({ rappture: "none/tool.xml" }), dir)), {
    message: `tools.fermi.revisions.default.rappture names ${join(dir, "none/tool.xml")}, which does not exist`,
  });
  // Another account that may write there could change the command the tool's account runs.
  chmodSync(join(dir, "fermi", "tool.xml"), 0o666);
  await assert.rejects(checkAppFiles(parseGatewayConfig(withRevision({ rappture: "fermi/tool.xml" }), dir)), {
    message: `tools.fermi.revisions.default.rappture names ${join(dir, "fermi/tool.xml")}, which or whose folder every account may write`,
  });
  chmodSync(join(dir, "fermi", "tool.xml"), 0o644);
  writeFileSync(join(dir, "fermi", "broken.xml"), "<run>\n  <tool>\n</run>\n");
  await assert.rejects(checkAppFiles(parseGatewayConfig(withRevision({ rappture: "fermi/broken.xml" }), dir)), {
    message: `tools.fermi.revisions.default.rappture is not a usable tool.xml: ${join(dir, "fermi/broken.xml")}: line 3: </run> closes <tool>`,
  });
  chmodSync(join(dir, "fermi"), 0o777);
  await assert.rejects(checkAppFiles(parseGatewayConfig(withRevision({ slurm: { rappture: "fermi/tool.xml", workdir: "." } }), dir)), {
    message: `tools.fermi.revisions.default.slurm.rappture names ${join(dir, "fermi/tool.xml")}, which or whose folder every account may write`,
  });
  chmodSync(dir, 0o777);
  await assert.rejects(checkAppFiles(parseGatewayConfig(withRevision({ app: "app.ts" }), dir)), {
    message: `tools.fermi.revisions.default.app names ${join(dir, "app.ts")}, which or whose folder every account may write`,
  });
});

test("the admin section names the operators' groups; nobody is an operator unless it does", async () => {
  const { isAdmin } = await import("../../../lib/gateway/config/admin-settings.ts");
  const none = parseGatewayConfig({ tools: {} }, "/");
  assert.deepEqual(none.admin.groups, []);
  assert.equal(isAdmin(none.admin, { groups: ["anyone"] }), false);
  const ops = parseGatewayConfig({ tools: {}, admin: { groups: ["hub-admins"] } }, "/");
  assert.equal(isAdmin(ops.admin, { groups: ["staff", "hub-admins"] }), true);
  assert.equal(isAdmin(ops.admin, { groups: ["staff"] }), false);
  for (const [admin, line] of [
    [[], "admin must be an object"],
    [{ group: "x" }, "admin.group is not a known key"],
    [{ groups: "hub-admins" }, "admin.groups must be an array of group names"],
    [{ groups: ["bad name"] }, "admin.groups must be an array of group names"],
  ] as const) {
    assert.throws(
      () => parseGatewayConfig({ tools: {}, admin }, "/"),
      (err) => err instanceof ConfigError && err.message === line,
    );
  }
});
