// The gateway's assembly (lib/gateway/assembly/assemble.ts): steps in dependency order, each
// seeing the parts before it, closed in reverse; a failing step closes what was built.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { Assembly } from "../../../lib/gateway/assembly/assemble.ts";
import { AuditTrail } from "../../../lib/gateway/audit/trail.ts";
import { NO_AUDIT } from "../../../lib/gateway/config/audit-settings.ts";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { startGateway } from "../../../lib/gateway/server.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";

test("steps build in order from the parts before them and close in reverse, once", async () => {
  const seen: string[] = [];
  const assembly = new Assembly<{ base: number }>()
    .add(
      "one",
      ({ base }) => base + 1,
      (v) => void seen.push(`close one ${v}`),
    )
    .add("two", async ({ one }) => one * 2)
    .add(
      "three",
      ({ one, two }) => `${one}/${two}`,
      async (v, { base }) => void seen.push(`close three ${v} ${base}`),
    );
  const { parts, close } = await assembly.assemble({ base: 1 });
  assert.deepEqual(parts, { base: 1, one: 2, two: 4, three: "2/4" });
  const first = close();
  assert.equal(close(), first, "a second close gets the same promise");
  await first;
  assert.deepEqual(seen, ["close three 2/4 1", "close one 2"]);
});

test("steps that return no promise run with nothing in between", async () => {
  let ran = false;
  const { parts } = await new Assembly<object>()
    .add("queued", () => queueMicrotask(() => (ran = true)))
    .add("before", () => ran)
    .assemble({});
  assert.equal(parts.before, false);
});

test("a failing step closes what was built before it, in reverse, and throws its error", async () => {
  const closed: string[] = [];
  const assembly = new Assembly<object>()
    .add(
      "a",
      () => "a",
      (v) => void closed.push(v),
    )
    .add("b", () => "b")
    .add(
      "c",
      async () => "c",
      async (v) => void closed.push(v),
    )
    .add("d", (): string => {
      throw new RangeError("no d");
    })
    .add(
      "e",
      () => closed.push("e built"),
      () => closed.push("e closed"),
    );
  await assert.rejects(assembly.assemble({}), RangeError);
  assert.deepEqual(closed, ["c", "a"]);
});

test("a gateway that cannot listen rejects, having closed what it built (the trail given is flushed)", async (t) => {
  const taken = createServer();
  await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done));
  t.after(() => new Promise<void>((done) => taken.close(() => done())));
  const { port } = taken.address() as { port: number };
  let flushed = 0;
  const audit = new (class extends AuditTrail {
    override flush(): Promise<void> {
      flushed++;
      return super.flush();
    }
  })(NO_AUDIT);
  const starting = startGateway({ config: parseGatewayConfig({ tools: {} }, "/"), store: new MemoryRecordStore(), port, audit });
  await assert.rejects(starting, { code: "EADDRINUSE" });
  assert.equal(flushed, 1);
});
