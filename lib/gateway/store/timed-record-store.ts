// The store as the gateway uses it, timed: each operation's latency and failures go to
// /metrics (hubmcp_gateway_store_seconds, hubmcp_gateway_store_errors_total), so an operator
// sees a slow or failing database before people do.
import type { RecordStore } from "../contracts/interfaces.ts";

export type StoreObserver = (op: string, ms: number, failed: boolean) => void;

async function timed<T>(op: string, observe: StoreObserver, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const value = await run();
    observe(op, performance.now() - started, false);
    return value;
  } catch (err) {
    observe(op, performance.now() - started, true);
    throw err;
  }
}

export class TimedRecordStore implements RecordStore {
  readonly #inner: RecordStore;
  readonly #observe: StoreObserver;

  constructor(inner: RecordStore, observe: StoreObserver) {
    this.#inner = inner;
    this.#observe = observe;
  }

  get<T>(collection: string, id: string): Promise<T | undefined> {
    return timed("get", this.#observe, () => this.#inner.get<T>(collection, id));
  }

  put(collection: string, id: string, value: unknown): Promise<void> {
    return timed("put", this.#observe, () => this.#inner.put(collection, id, value));
  }

  create(collection: string, id: string, value: unknown): Promise<boolean> {
    return timed("create", this.#observe, () => this.#inner.create(collection, id, value));
  }

  delete(collection: string, id: string): Promise<void> {
    return timed("delete", this.#observe, () => this.#inner.delete(collection, id));
  }

  update<T>(collection: string, id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    return timed("update", this.#observe, () => this.#inner.update<T>(collection, id, change));
  }

  list<T>(collection: string): Promise<Array<{ id: string; value: T }>> {
    return timed("list", this.#observe, () => this.#inner.list<T>(collection));
  }

  secret(name: string): Promise<Buffer> {
    return timed("secret", this.#observe, () => this.#inner.secret(name));
  }
}
