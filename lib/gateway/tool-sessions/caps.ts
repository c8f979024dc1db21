// The caps on tool sessions (`sessionsTotal`, `sessionsPerUser`), held when first requests
// race, on one replica or several: counting the sessions and then starting one let every
// concurrent request pass the count. A session takes a place under each cap, in a record per
// cap (`tool-session-places/all`, `/user\n<name>`) changed only through RecordStore.update.
// Places are given back lazily: a cap that looks full first drops the places of sessions
// that have ended.
import type { GatewayLimits } from "../config/limits-settings.ts";
import type { RecordStore } from "../contracts/interfaces.ts";
import { GatewayError } from "../contracts/respond.ts";

const PLACES = "tool-session-places";
const RETRY_AFTER_S = "30";

/** The sessions holding places under one cap: instance → session key. */
type Places = Record<string, string>;

export interface ToolSessionCapsOptions {
  store: RecordStore;
  limits: Pick<GatewayLimits, "sessionsTotal" | "sessionsPerUser">;
  /** The record as the data dir has it now, past any cache. */
  readFresh<T>(collection: string, id: string): Promise<T | undefined>;
  /** The instances of every tool session record there is now. */
  liveInstances(): Promise<Set<string>>;
}

export class ToolSessionCaps {
  readonly #o: ToolSessionCapsOptions;

  constructor(options: ToolSessionCapsOptions) {
    this.#o = options;
  }

  /**
   * Takes a place under the total cap and one under the user's for a session whose record
   * is already written (no user: a shared tool session, under the total cap alone). Answers
   * the error to give when a cap is full (any place taken is given back), else undefined.
   */
  async claim(user: string | undefined, key: string, instance: string): Promise<GatewayError | undefined> {
    const { sessionsTotal, sessionsPerUser } = this.#o.limits;
    if (!(await this.#claim("all", sessionsTotal, key, instance))) return tooMany();
    if (user === undefined || (await this.#claim(`user\n${user}`, sessionsPerUser, key, instance))) return undefined;
    const mine = new Set([instance]);
    await this.#o.store.update<Places>(PLACES, "all", (places) => (places?.[instance] ? without(places, mine) : undefined));
    return tooManyForUser(sessionsPerUser);
  }

  // A session's record is written before it takes a place. So a place read before the
  // sessions are listed, whose instance the list then lacks, belongs to a session that has
  // ended (instances are never reused): it is free again. A cap that looked free when read
  // may be full of ended places by the time it is updated (sessions that start and stop
  // quickly, as catalog fills do): then it is cleaned and tried again, and refused only
  // when the cleaning frees nothing.
  async #claim(id: string, cap: number, key: string, instance: string): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = Object.keys((await this.#o.readFresh<Places>(PLACES, id)) ?? {});
      let ended = new Set<string>();
      if (attempt > 0 || before.length >= cap) {
        const live = await this.#o.liveInstances();
        ended = new Set(before.filter((i) => !live.has(i)));
      }
      const after = await this.#o.store.update<Places>(PLACES, id, (places) => {
        const kept = without(places ?? {}, ended);
        return Object.keys(kept).length < cap ? { ...kept, [instance]: key } : undefined;
      });
      if (after?.[instance] !== undefined) return true;
      // Cleaned and nothing was free: every place read is a live session's, so it is full.
      if ((attempt > 0 || before.length >= cap) && ended.size === 0) return false;
    }
    return false;
  }
}

function without(places: Places, gone: ReadonlySet<string>): Places {
  return Object.fromEntries(Object.entries(places).filter(([instance]) => !gone.has(instance)));
}

export function tooMany(): GatewayError {
  return new GatewayError("too_many_sessions", "The gateway runs as many tool sessions as it may; try again later", { "retry-after": RETRY_AFTER_S });
}

export function tooManyForUser(most: number): GatewayError {
  return new GatewayError("too_many_user_sessions", `You have ${most} tool sessions running, the most allowed; try again later`, {
    "retry-after": RETRY_AFTER_S,
  });
}
