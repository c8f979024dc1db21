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

export interface RecordLockTiming {
  /** A lock older than this was left by a crashed holder; 30 s. */
  staleMs?: number;
  /** How long to wait for a live holder before RecordLockBusy; 10 s. */
  waitMs?: number;
}

export async function withRecordLock<T>(store: RecordStore, locks: string, id: string, work: () => Promise<T>, timing: RecordLockTiming = {}): Promise<T> {
  const { staleMs = STALE_MS, waitMs = WAIT_MS } = timing;
  const started = Date.now();
  for (let attempt = 0; !(await store.create(locks, id, { at: Date.now() })); attempt++) {
    const held = await store.get<{ at: number }>(locks, id);
    if (held && Date.now() - held.at > staleMs) {
      await store.delete(locks, id);
      continue;
    }
    if (Date.now() - started >= waitMs) throw new RecordLockBusy();
    await new Promise((done) => setTimeout(done, Math.min(10 * 2 ** attempt, 200)));
  }
  try {
    return await work();
  } finally {
    await store.delete(locks, id);
  }
}
