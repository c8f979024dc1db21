import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { waitForPort } from "../../lib/launcher/child.ts";
import { freePort } from "../helpers/launcher-fixtures.ts";

test("waitForPort sees a listener, and gives up when the process ends or time runs out", async (t) => {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  t.after(() => new Promise<void>((done) => server.close(() => done())));
  const port = (server.address() as { port: number }).port;
  assert.equal(await waitForPort(port, new Promise(() => {})), true);
  const closed = await freePort();
  assert.equal(await waitForPort(closed, Promise.resolve()), false);
  assert.equal(await waitForPort(closed, new Promise(() => {}), 20, 5), false);
});
