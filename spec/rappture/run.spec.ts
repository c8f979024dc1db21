import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { currentValues } from "../../lib/rappture/arguments.ts";
import { readOutputs } from "../../lib/rappture/outputs.ts";
import { commandWords, runRappture } from "../../lib/rappture/run.ts";
import { readToolXml } from "../../lib/rappture/tool-xml.ts";
import { textAt } from "../../lib/rappture/xml.ts";

const FERMI = readToolXml(fileURLToPath(new URL("../../fixtures/rappture/fermi/tool.xml", import.meta.url)));
const SHELL = readToolXml(fileURLToPath(new URL("../../fixtures/rappture/shell/tool.xml", import.meta.url)));

function workRoot(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-rappture-spec-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function currents(tool: typeof FERMI, args: Record<string, unknown>): Map<string, string> {
  const r = currentValues(tool.inputs, args);
  assert.ok(r.ok);
  return r.current;
}

test("a run: driver written, progress passed on, run file read back, working folder gone", async (t) => {
  const root = workRoot(t);
  const progress: Array<[number, string]> = [];
  const logs: string[] = [];
  const r = await runRappture(FERMI, currents(FERMI, { tabs_physics_temperature: "77K", points: 20 }), {
    timeoutMs: 60_000,
    env: { ...process.env, HUBMCP_FIXTURE_ENV: "seen" },
    workRoot: root,
    onProgress: (p, m) => progress.push([p, m]),
    onLog: (l) => logs.push(l),
  });
  assert.ok(r.ok, r.ok ? "" : `${r.problem}: ${r.stderrTail}`);
  assert.deepEqual(progress[0], [0, "computing f(E)"]);
  assert.ok(progress.length >= 4);
  assert.deepEqual(logs, ["computing"]);
  const out = readOutputs(r.run);
  const curve = out.structured.f as { points: number[][]; xaxis: { units: string } };
  assert.equal(curve.points.length, 20);
  assert.equal(curve.xaxis.units, "eV");
  assert.match(out.logs[0]!, /^T=77 Ef=0 env=seen$/);
  assert.equal(textAt(r.run, "input.group.group.number.current"), "77K", "the run file holds the driver's values");
  assert.match(r.digest, /^[0-9a-f]{64}$/);
  assert.deepEqual(readdirSync(root), [], "the working folder is removed");
});

test("the folder is private, the command's words are the tool's own, and an input value stays data", async (t) => {
  const root = workRoot(t);
  const marker = join(root, "pwned");
  const progress: string[] = [];
  const r = await runRappture(SHELL, currents(SHELL, { text: `$(touch ${marker}); \`touch ${marker}\` & <b>` }), {
    timeoutMs: 60_000,
    env: process.env,
    workRoot: root,
    onProgress: (_, m) => progress.push(m),
  });
  assert.ok(r.ok, r.ok ? "" : `${r.problem}: ${r.stderrTail}`);
  assert.deepEqual(progress, ["folder 700"]);
  const out = readOutputs(r.run).structured as Record<string, { value: unknown }>;
  assert.equal(out.mode!.value, "700");
  assert.equal(out.argc!.value, 1, "the quoted script path with a space is one word; the driver is the one argument");
  assert.equal(textAt(r.run, "input.string.current"), `$(touch ${marker}); \`touch ${marker}\` & <b>`);
  assert.equal(existsSync(marker), false);
});

test("failures are short problems with the tail of the program's errors, never a throw", async (t) => {
  const root = workRoot(t);
  const run = (title: string) => runRappture(FERMI, currents(FERMI, { title }), { timeoutMs: 60_000, env: process.env, workRoot: root });
  const failed = await run("fail");
  assert.deepEqual(
    [failed.ok, !failed.ok && failed.problem, !failed.ok && failed.stderrTail],
    [false, "the tool exited with status 3", "fermi: the solver diverged"],
  );
  const none = await run("nofile");
  assert.ok(!none.ok && /wrote no run file/.test(none.problem));
  const bad = await run("badxml");
  assert.ok(!bad.ok && /the run file is not valid XML \(line 1: <output> is not closed\)/.test(bad.problem));
  const unnamed = await run("unnamed");
  assert.ok(unnamed.ok, "without =RAPPTURE-RUN=> the newest run*.xml in the folder is the run file");
  const broken = await runRappture({ ...FERMI, command: "python3 'unclosed" }, new Map(), { timeoutMs: 1000, env: process.env, workRoot: root });
  assert.ok(!broken.ok && /unclosed quote/.test(broken.problem));
  const missing = await runRappture({ ...FERMI, command: "hubmcp-no-such-program @driver" }, new Map(), { timeoutMs: 1000, env: process.env, workRoot: root });
  assert.ok(!missing.ok && /could not be started/.test(missing.problem));
  assert.deepEqual(readdirSync(root), []);
});

test("cancellation and the time limit end the whole process group", async (t) => {
  const root = workRoot(t);
  const controller = new AbortController();
  const cancelled = await runRappture(FERMI, currents(FERMI, { title: "sleep" }), {
    timeoutMs: 60_000,
    env: process.env,
    workRoot: root,
    signal: controller.signal,
    onProgress: () => controller.abort(),
  });
  assert.ok(!cancelled.ok && cancelled.problem === "the run was cancelled");
  const late = await runRappture(FERMI, currents(FERMI, { title: "sleep" }), { timeoutMs: 300, env: process.env, workRoot: root });
  assert.ok(!late.ok && /longer than its limit of 0 s/.test(late.problem));
  const already = await runRappture(FERMI, currents(FERMI, {}), { timeoutMs: 60_000, env: process.env, workRoot: root, signal: AbortSignal.abort() });
  assert.ok(!already.ok && already.problem === "the run was cancelled");
  assert.deepEqual(readdirSync(root), []);
});

test("commands split into words as a shell would, with nothing expanded", () => {
  assert.deepEqual(commandWords(`python3 @tool/a.py @driver`), ["python3", "@tool/a.py", "@driver"]);
  assert.deepEqual(commandWords(`sh "@tool/my script.sh" '$HOME' a\\ b "q\\"x" ''`), ["sh", "@tool/my script.sh", "$HOME", "a b", 'q"x', ""]);
  assert.equal(commandWords("   "), undefined);
  assert.equal(commandWords(`a "b`), undefined);
});
