import { test } from "node:test";
import assert from "node:assert/strict";
import { delimiter, join } from "node:path";
import { condaEnvironments, condaVars, lookupConda, resolveConda } from "../../lib/launcher/conda.ts";
import { fakeConda, tempDir } from "../helpers/launcher-fixtures.ts";

const done = (stdout: string, code = 0) => ({ kind: "done" as const, code, stdout, stderr: "" });

test("environments are named by folder; the root prefix is base", () => {
  const envs = condaEnvironments({ root_prefix: "/opt/conda", envs: ["/opt/conda", "/opt/conda/envs/AIIDA", 7, "/home/u/envs/AIIDA"] });
  assert.deepEqual(
    [...envs],
    [
      ["base", "/opt/conda"],
      ["AIIDA", "/opt/conda/envs/AIIDA"],
    ],
  );
  assert.deepEqual([...condaEnvironments({})], []);
});

test("condaVars puts the env's bin first on PATH", () => {
  assert.deepEqual(condaVars("x", "/p", `/usr/bin${delimiter}/bin`), {
    PATH: `/p/bin${delimiter}/usr/bin${delimiter}/bin`,
    CONDA_PREFIX: "/p",
    CONDA_DEFAULT_ENV: "x",
  });
  assert.equal(condaVars("x", "/p", undefined).PATH, "/p/bin");
});

test("resolveConda: found by name or prefix; missing names the available ones; conda problems say so", () => {
  const info = JSON.stringify({ root_prefix: "/c", envs: ["/c", "/c/envs/b2", "/c/envs/a1"] });
  const found = resolveConda("a1", done(info), "/usr/bin");
  assert.equal(found.kind === "found" && found.prefix, "/c/envs/a1");
  const byPath = resolveConda("/c/envs/b2", done(info), undefined);
  assert.equal(byPath.kind === "found" && byPath.vars.CONDA_DEFAULT_ENV, "b2");
  const missing = resolveConda("zz", done(info), undefined);
  assert.equal(missing.kind === "error" && missing.message, 'conda environment "zz" not found; available: a1, b2, base');
  const emptyList = resolveConda("zz", done("{}"), undefined);
  assert.match(emptyList.kind === "error" ? emptyList.message : "", /available: none/);
  const noConda = resolveConda("a", { kind: "missing" }, undefined);
  assert.match(noConda.kind === "error" ? noConda.message : "", /no `conda` command/);
  const failed = resolveConda("a", done("", 1), undefined);
  assert.match(failed.kind === "error" ? failed.message : "", /failed/);
  const timedOut = resolveConda("a", { kind: "failed", reason: "timed out" }, undefined);
  assert.equal(timedOut.kind, "error");
  const garbage = resolveConda("a", done("not json"), undefined);
  assert.match(garbage.kind === "error" ? garbage.message : "", /not JSON/);
});

test("lookupConda runs `conda info --json` from PATH", async (t) => {
  const dir = tempDir(t);
  const conda = fakeConda(dir, ["AIIDA"]);
  const result = await lookupConda("AIIDA", { PATH: `${conda.bin}${delimiter}/usr/bin${delimiter}/bin` });
  assert.equal(result.kind, "found");
  assert.equal(result.kind === "found" && result.vars.PATH?.split(delimiter)[0], join(conda.root, "envs", "AIIDA", "bin"));
  const noConda = await lookupConda("AIIDA", { PATH: tempDir(t) });
  assert.match(noConda.kind === "error" ? noConda.message : "", /no `conda` command was found/);
});
