// The SessionStore contract: what any store must do for the transports to work on it. It
// runs against the built-in SessionTable and against a store injected into a server,
// which HTTP and stdio then use.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
// Built from the package's public exports only: the `sessionStore` option is implementable from outside.
import { McpServer, SessionTable, type Session, type SessionStore } from "../../lib/index.ts";
import { post, rpc } from "../helpers/rpc.ts";

/** The contract; `make` returns a fresh, empty store. */
function contract(name: string, make: () => SessionStore): void {
  test(`${name}: create, get, values, size and delete agree; delete ends the session once`, (t) => {
    const store = make();
    t.after(() => store.close());
    const a = store.create()!;
    const b = store.create()!;
    assert.notEqual(a.id, b.id);
    assert.equal(store.size, 2);
    assert.equal(store.get(a.id), a);
    assert.deepEqual(new Set(store.values()), new Set([a, b]));
    let ended = 0;
    a.onEnd(() => ended++);
    assert.equal(store.delete(a.id), true);
    assert.equal(store.delete(a.id), false);
    assert.equal(ended, 1);
    assert.equal(store.get(a.id), undefined);
    assert.equal(store.size, 1);
  });

  test(`${name}: close() ends every session`, () => {
    const store = make();
    const ended: Session[] = [];
    for (let i = 0; i < 3; i++) {
      const s = store.create()!;
      s.onEnd(() => ended.push(s));
    }
    store.close();
    assert.equal(ended.length, 3);
    assert.equal(store.size, 0);
  });
}

contract("SessionTable", () => new SessionTable());

/** A store of the user's own: the built-in table behind a counter. */
class CountingStore implements SessionStore {
  readonly #inner = new SessionTable();
  created = 0;
  create(): Session | null {
    this.created++;
    return this.#inner.create();
  }
  get(id: string) {
    return this.#inner.get(id);
  }
  delete(id: string) {
    return this.#inner.delete(id);
  }
  values() {
    return this.#inner.values();
  }
  get size() {
    return this.#inner.size;
  }
  sweep() {
    return this.#inner.sweep();
  }
  close() {
    this.#inner.close();
  }
}

contract("an injected store", () => new CountingStore());

test("a store given to the server holds its HTTP and stdio sessions, and outlives the server's close", async (t) => {
  const store = new CountingStore();
  t.after(() => store.close());
  const server = new McpServer("injected", { sessionStore: store });
  assert.equal(server.sessions, store);
  const running = await server.listen({ port: 0 });
  const init = await post(
    `${running.url}mcp`,
    rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }),
  );
  const id = init.headers.get("mcp-session-id")!;
  assert.ok(store.get(id));
  const input = new PassThrough();
  const stdio = server.serveStdio({ input, output: new PassThrough() });
  assert.ok(store.get(stdio.sessionId));
  assert.equal(store.created, 2);
  input.end();
  await stdio.closed;
  assert.equal(store.get(stdio.sessionId), undefined, "the stdio connection's session ended with it");
  await running.close();
  assert.ok(store.get(id), "the server never closes a store it was given");
});
