// A rate limit counted in the store, so replicas sharing a store (PostgreSQL) share the
// limit instead of each allowing the full rate. The state of one key is one record,
// changed by RecordStore.update, atomic across processes. While the store is unreachable
// the replica's own in-memory limit decides: a limit must not turn an outage into refusals
// of requests the lookup cache could still serve.
import type { RecordStore } from "./contracts.ts";
import { isStoreUnavailable } from "./store/store-errors.ts";

/** One step of a limit: the key's next state, and the seconds to wait (0: go). */
export type LimitStep<S> = (state: S | undefined, now: number) => { state: S; wait: number };

export class SharedLimit<S> {
  constructor(
    private readonly store: RecordStore,
    private readonly collection: string,
    private readonly step: LimitStep<S>,
    /** This process's own limit, for while the store is unreachable. */
    private readonly local: (key: string) => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one event for `key`; answers the seconds to wait, or 0. */
  async hit(key: string): Promise<number> {
    const now = this.now();
    let wait = 0;
    try {
      // `update` may run the step again after a conflict; the last run's answer is the one stored.
      await this.store.update<S>(this.collection, key.slice(0, 512), (state) => {
        const next = this.step(state, now);
        wait = next.wait;
        return next.state;
      });
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
      return this.local(key);
    }
    return wait;
  }
}
