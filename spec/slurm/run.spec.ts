// slurm.run against a real one-node Slurm cluster (spec/helpers/slurm.ts): a tool submits
// its own job, reports progress from the job's output, publishes the job id as its task's
// handle, and takes the job down with it when cancelled.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpServer, slurm, SlurmError, type ToolContext } from "../../lib/index.ts";
import { openEvents, type EventReader } from "../helpers/rpc.ts";
import { tempDir } from "../helpers/launcher-fixtures.ts";
import { failingSqueue, slurmCluster, squeueState } from "../helpers/slurm.ts";
import { deferred, RpcClient } from "../tasks/harness.ts";

const HANDLE = "io.hubmcp/handle";

/** The next progress notification's params on a session's stream. */
async function nextProgress(events: EventReader): Promise<any> {
  for (;;) {
    const event = await events.next();
    // The stream opens with a priming event (no data) before any message.
    if (event.event !== "message" || event.data === "") continue;
    const message = JSON.parse(event.data);
    if (message.method === "notifications/progress") return message.params;
  }
}

test("slurm.run checks its options before submitting anything", async (t) => {
  const dir = tempDir(t, "hubmcp-slurm-opts-");
  const ctx = { signal: new AbortController().signal, reportProgress() {}, setTaskMetadata: () => false };
  const code = async (options: Parameters<typeof slurm.run>[1]): Promise<string> => {
    try {
      await slurm.run(ctx, { workdir: dir, ...options });
    } catch (err) {
      assert.ok(err instanceof SlurmError);
      return err.code;
    }
    return "no error";
  };
  assert.equal(await code({ command: ["true"], script: "true" }), "HUBMCP_SLURM_OPTIONS");
  assert.equal(await code({}), "HUBMCP_SLURM_OPTIONS");
  assert.equal(await code({ command: [] }), "HUBMCP_SLURM_OPTIONS");
  assert.equal(await code({ command: ["true"], partition: "a\nb" }), "HUBMCP_SLURM_OPTIONS");
  assert.equal(await code({ command: ["true"], sbatch: ["mem=2G"] }), "HUBMCP_SLURM_OPTIONS");
  assert.equal(await code({ command: ["true"], pollMs: 0 }), "HUBMCP_SLURM_OPTIONS");
  assert.equal(await code({ command: ["true"], workdir: `${dir}/missing` }), "HUBMCP_SLURM_OPTIONS");
  // No sbatch on PATH: a clear error, and the job's private folder is gone again.
  assert.equal(await code({ command: ["true"], env: { PATH: dir } }), "HUBMCP_SLURM_SUBMIT");
  assert.deepEqual(spawnSync("ls", ["-A", dir], { encoding: "utf8" }).stdout, "");
});

test("tools running their work as Slurm jobs on a real cluster", async (t) => {
  const cluster = await slurmCluster(t);
  if (!cluster) return;
  const workdir = tempDir(t, "hubmcp-slurm-work-");
  const ended = { cancelled: deferred<unknown>(), lost: deferred<unknown>() };
  const server = new McpServer("slurm-spec");
  const options = { partition: cluster.partition, time: "00:05:00", workdir, pollMs: 100 };
  // What the job saw as TRACEPARENT, and the span of the call that submitted it.
  const traced = { job: "", call: "" };
  server.asyncTool(
    async (_args: object, ctx: ToolContext) => {
      const script = 'echo PROGRESS 1/2 meshing; echo PROGRESS 2/2 solving; echo "trace=$TRACEPARENT"; echo result=42';
      const done = await slurm.run(ctx, { ...options, command: ["/bin/sh", "-c", script] });
      const lines = done.output.trim().split("\n");
      traced.job = lines.find((l) => l.startsWith("trace=")) ?? "";
      traced.call = ctx.trace.traceparent;
      return lines.at(-1);
    },
    { name: "simulate", inputSchema: { type: "object" } },
  );
  for (const which of ["cancelled", "lost"] as const) {
    server.asyncTool(
      async (_args: object, ctx: ToolContext) => {
        try {
          return await slurm.run(ctx, { ...options, command: ["/bin/sh", "-c", "echo PROGRESS 1 started; exec sleep 300"] });
        } catch (err) {
          ended[which].resolve(err);
          throw err;
        }
      },
      { name: `long_${which}`, inputSchema: { type: "object" } },
    );
  }
  server.tool(
    async (_args: object, ctx: ToolContext) => {
      await slurm.run(ctx, { ...options, script: "#!/bin/sh\necho PROGRESS 1/1\nexit 3\n" });
      return "unreachable";
    },
    { name: "broken", inputSchema: { type: "object" } },
  );
  const running = await server.listen({ port: 0, host: "127.0.0.1" });
  t.after(() => running.close());
  const client = new RpcClient(running.url);
  await client.initialize({ tasks: { cancel: {} } });
  const events = await openEvents(`${running.url}mcp`, { "mcp-session-id": client.sessionId! });
  t.after(() => events.close());

  await t.test("a tool submits its own job, reports its progress and returns its output; the job id is the task's handle", async () => {
    const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const { task } = await client.result("tools/call", { name: "simulate", arguments: {}, task: {}, _meta: { progressToken: "sim", traceparent: parent } });
    const first = await nextProgress(events);
    assert.deepEqual([first.progress, first.total, first.message], [1, 2, "meshing"]);
    assert.equal((await nextProgress(events)).message, "solving");
    const result = await client.result("tasks/result", { taskId: task.taskId });
    assert.equal(result.content[0].text, "result=42");
    // The job continues the trace of the call that submitted it.
    assert.match(traced.call, /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    assert.notEqual(traced.call, parent);
    assert.equal(traced.job, `trace=${traced.call}`);
    const got = await client.result("tasks/get", { taskId: task.taskId });
    assert.equal(got.status, "completed");
    assert.equal(got._meta[HANDLE].scheduler, "slurm");
    assert.match(got._meta[HANDLE].jobId, /^\d+$/);
  });

  await t.test("cancelling the task cancels its Slurm job: gone from squeue when the tool returns", async () => {
    const { task } = await client.result("tools/call", { name: "long_cancelled", arguments: {}, task: {}, _meta: { progressToken: "long" } });
    assert.equal((await nextProgress(events)).message, "started");
    const { _meta } = await client.result("tasks/get", { taskId: task.taskId });
    const jobId = _meta[HANDLE].jobId;
    assert.equal(squeueState(jobId), "RUNNING");
    assert.equal((await client.result("tasks/cancel", { taskId: task.taskId })).status, "cancelled");
    const err = (await ended.cancelled.promise) as SlurmError;
    assert.equal(err.code, "HUBMCP_SLURM_CANCELLED");
    assert.equal(err.jobId, jobId);
    assert.equal(squeueState(jobId), null);
  });

  await t.test("a job cancelled behind the tool's back fails the run with the reason", async () => {
    const { task } = await client.result("tools/call", { name: "long_lost", arguments: {}, task: {}, _meta: { progressToken: "lost" } });
    assert.equal((await nextProgress(events)).message, "started");
    const { _meta } = await client.result("tasks/get", { taskId: task.taskId });
    assert.equal(spawnSync("scancel", [_meta[HANDLE].jobId]).status, 0);
    const result = await client.result("tasks/result", { taskId: task.taskId });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /ended before its command finished/);
    assert.equal(((await ended.lost.promise) as SlurmError).code, "HUBMCP_SLURM_LOST");
  });

  await t.test("a failing squeue is 'ask again', never 'job gone': the run follows its job to the end", async () => {
    const squeue = failingSqueue(tempDir(t, "hubmcp-squeue-"));
    const go = join(workdir, "go");
    const ctx = { signal: new AbortController().signal, reportProgress() {}, setTaskMetadata: () => false };
    // The job waits for the spec, which lets it finish only after squeue has failed through whole looks.
    const running = slurm.run(ctx, {
      ...options,
      env: { ...process.env, PATH: squeue.path },
      command: ["/bin/sh", "-c", `while [ ! -e ${go} ]; do sleep 0.1; done; echo finished`],
    });
    squeue.failing(true);
    await squeue.failedAtLeast(6);
    writeFileSync(go, "");
    const done = await running;
    assert.equal(done.exitCode, 0);
    assert.equal(done.output.trim(), "finished");
  });

  await t.test("a batch script exiting non-zero is the tool's error, with the status", async () => {
    const result = await client.result("tools/call", { name: "broken", arguments: {} });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /^Slurm job \d+ exited with status 3$/);
  });
});
