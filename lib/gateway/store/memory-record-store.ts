// A RecordStore in memory, for specs and single-process embedding. Values are copied
// through JSON on the way in and out, as the file store does, so callers can't share state.
import { randomBytes } from "node:crypto";
import type { RecordStore } from "../contracts/interfaces.ts";
import { checkCollection, encodeId } from "./record-names.ts";

export class MemoryRecordStore implements RecordStore {
  readonly #collections = new Map<string, Map<string, string>>();

  async get<T>(collection: string, id: string): Promise<T | undefined> {
    const text = this.#collection(collection).get(checkId(id));
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async put(collection: string, id: string, value: unknown): Promise<void> {
    this.#collection(collection).set(checkId(id), JSON.stringify(value));
  }

  async create(collection: string, id: string, value: unknown): Promise<boolean> {
    const records = this.#collection(collection);
    if (records.has(checkId(id))) return false;
    records.set(id, JSON.stringify(value));
    return true;
  }

  async delete(collection: string, id: string): Promise<void> {
    this.#collection(collection).delete(checkId(id));
  }

  // Nothing awaits between the read and the write, so no other call can come between them.
  async update<T>(collection: string, id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    const records = this.#collection(collection);
    const text = records.get(checkId(id));
    const next = change(text === undefined ? undefined : (JSON.parse(text) as T));
    if (next === undefined) return text === undefined ? undefined : (JSON.parse(text) as T);
    const written = JSON.stringify(next);
    records.set(id, written);
    return JSON.parse(written) as T;
  }

  async list<T>(collection: string): Promise<Array<{ id: string; value: T }>> {
    return [...this.#collection(collection)].map(([id, text]) => ({ id, value: JSON.parse(text) as T }));
  }

  async secret(name: string): Promise<Buffer> {
    await this.create("secrets", name, { key: randomBytes(32).toString("base64") });
    const record = (await this.get<{ key: string }>("secrets", name))!;
    return Buffer.from(record.key, "base64");
  }

  #collection(name: string): Map<string, string> {
    let records = this.#collections.get(checkCollection(name));
    if (!records) this.#collections.set(name, (records = new Map()));
    return records;
  }
}

function checkId(id: string): string {
  encodeId(id);
  return id;
}
