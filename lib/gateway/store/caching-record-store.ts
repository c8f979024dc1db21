// A RecordStore that remembers, for a short time, the records the request path reads on
// every request (API tokens, accounts, running tool sessions). Reading them from the data
// dir cost more than the rest of the gateway's work per request put together. Writes made
// through this store take effect here at once; writes by another process (a `token
// revoke`, another replica) within `ttlMs`. Misses are never remembered, so a record
// created elsewhere is seen at once and unknown ids cannot fill the cache.
import type { RecordStore } from "../contracts/interfaces.ts";

export interface RecordCacheOptions {
  /** How long a record read is trusted; 0 turns the cache off. */
  ttlMs: number;
  /** Whether a record may be remembered (e.g. only tokens, or only tool sessions that are ready). */
  keep(collection: string, value: unknown): boolean;
  /** Most records held; the oldest go first. 10,000 by default. */
  maxEntries?: number;
  /** The clock; for specs. */
  now?: () => number;
}

/** A read of the data dir under way; a write to its record while it runs makes its value unfit to keep. */
interface Reading {
  promise: Promise<string | undefined>;
  stale: boolean;
}

interface Entry {
  /** The record as JSON: each reader gets its own copy, as from any RecordStore. */
  json: string;
  expires: number;
}

export class CachingRecordStore implements RecordStore {
  readonly #inner: RecordStore;
  readonly #o: RecordCacheOptions;
  readonly #max: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  /** Reads under way: when a record expires, every request in flight wants it at once. */
  readonly #reading = new Map<string, Reading>();

  constructor(inner: RecordStore, options: RecordCacheOptions) {
    this.#inner = inner;
    this.#o = options;
    this.#max = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  async get<T>(collection: string, id: string): Promise<T | undefined> {
    if (this.#o.ttlMs <= 0) return this.#inner.get<T>(collection, id);
    const key = `${collection}\n${id}`;
    const hit = this.#entries.get(key);
    const now = this.#now();
    if (hit && hit.expires > now) return JSON.parse(hit.json) as T;
    let reading = this.#reading.get(key);
    if (!reading) {
      const started: Reading = { promise: Promise.resolve(undefined), stale: false };
      started.promise = this.#read(collection, id, key, now, started);
      reading = started;
      this.#reading.set(key, started);
      void started.promise
        .finally(() => {
          if (this.#reading.get(key) === started) this.#reading.delete(key);
        })
        .catch(() => undefined);
    }
    // Each caller of a shared read gets its own copy.
    const json = await reading.promise;
    return json === undefined ? undefined : (JSON.parse(json) as T);
  }

  /**
   * The remembered copy of a record, as an identity only, while it is trusted (unexpired, not
   * written since): something computed from records may be reused as long as each of them
   * still answers the same identity, and so never outlives what the cache would serve.
   */
  copyOf(collection: string, id: string): object | undefined {
    const hit = this.#entries.get(`${collection}\n${id}`);
    return hit && hit.expires > this.#now() ? hit : undefined;
  }

  /** Records remembered now, expired ones included until read again or evicted. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The record as the data dir has it now, for a decision that must not rest on an old copy
   * (compare, then delete or rewrite). Not shared with other reads, not remembered.
   */
  async fresh<T>(collection: string, id: string): Promise<T | undefined> {
    this.#entries.delete(`${collection}\n${id}`);
    return this.#inner.get<T>(collection, id);
  }

  async #read(collection: string, id: string, key: string, now: number, reading: Reading): Promise<string | undefined> {
    const value = await this.#inner.get(collection, id);
    // The expired copy goes whatever the read found: a record deleted elsewhere leaves nothing behind.
    if (!reading.stale) this.#entries.delete(key);
    if (value === undefined) return undefined;
    const json = JSON.stringify(value);
    if (reading.stale || !this.#o.keep(collection, value)) return json;
    if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { json, expires: now + this.#o.ttlMs });
    return json;
  }

  put(collection: string, id: string, value: unknown): Promise<void> {
    return this.#writing(collection, id, () => this.#inner.put(collection, id, value));
  }

  create(collection: string, id: string, value: unknown): Promise<boolean> {
    return this.#writing(collection, id, () => this.#inner.create(collection, id, value));
  }

  delete(collection: string, id: string): Promise<void> {
    return this.#writing(collection, id, () => this.#inner.delete(collection, id));
  }

  /** Always decided on the data dir's record, never on a remembered copy. */
  update<T>(collection: string, id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    return this.#writing(collection, id, () => this.#inner.update(collection, id, change));
  }

  list<T>(collection: string): Promise<Array<{ id: string; value: T }>> {
    return this.#inner.list<T>(collection);
  }

  secret(name: string): Promise<Buffer> {
    return this.#inner.secret(name);
  }

  // Before and after: a read under way, or one that began and ended during the write, may
  // hold the old record. It must not be kept, and later reads must not join it.
  async #writing<T>(collection: string, id: string, write: () => Promise<T>): Promise<T> {
    const key = `${collection}\n${id}`;
    this.#forget(key);
    try {
      return await write();
    } finally {
      this.#forget(key);
    }
  }

  #forget(key: string): void {
    this.#entries.delete(key);
    const reading = this.#reading.get(key);
    if (reading) reading.stale = true;
    this.#reading.delete(key);
  }
}
