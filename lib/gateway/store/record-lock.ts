// A lock on one record for a read-modify-write that must not lose a concurrent change (an
// account's password, groups or removal), made from the store's atomic create: the lock is
// a record that exists while held. A holder that crashed leaves it behind; one older than
// STALE_MS is taken over, far longer than any change it guards takes.
import type { RecordStore } from "../contracts.ts";

const STALE_MS = 30_000;
const WAIT_MS = 10_000;

/** The record stayed locked longer than a change takes: someone else is working on it. */
export class RecordLockBusy extends Error {
  readonly code = "record_locked";
  constructor() {
    super("the record is locked by another writer");
  }
}

export async function withRecordLock<T>(store: RecordStore, locks: string, id: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; !(await store.create(locks, id, { at: Date.now() })); attempt++) {
    const held = await store.get<{ at: number }>(locks, id);
    if (held && Date.now() - held.at > STALE_MS) {
      await store.delete(locks, id);
      continue;
    }
    if (Date.now() - started > WAIT_MS) throw new RecordLockBusy();
    await new Promise((done) => setTimeout(done, Math.min(10 * 2 ** attempt, 200)));
  }
  try {
    return await work();
  } finally {
    await store.delete(locks, id);
  }
}
