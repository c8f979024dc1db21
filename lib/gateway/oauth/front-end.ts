// Trusting the hub's web front end where it already signed the person in: their name (and
// groups) in headers the operator names, believed only from the front end's listed addresses
// and only beside the shared secret it adds (from a file, compared in constant time). Every
// request loses these headers on arrival, believed or not, so neither a forged one nor the
// secret itself ever reaches a tool server or a later reader of the request.
import type { IncomingMessage } from "node:http";
import { safeEqual } from "./crypto.ts";
import type { FrontEndSettings } from "./identity-settings.ts";
import { addressMatcher } from "./ip-ranges.ts";
import { accountName, mapGroups } from "./person-claims.ts";

export interface FrontEndPerson {
  readonly user: string;
  /** undefined when no groups header is configured: the store's groups stand. */
  readonly groups: readonly string[] | undefined;
}

export class FrontEndTrust {
  readonly #settings: FrontEndSettings & { readonly secret: string };
  readonly #fromFrontEnd: (address: string | undefined) => boolean;
  readonly #seen = new WeakMap<IncomingMessage, FrontEndPerson | null>();

  constructor(settings: FrontEndSettings & { readonly secret: string }) {
    this.#settings = settings;
    this.#fromFrontEnd = addressMatcher(settings.from);
  }

  /** Reads and removes the front end's headers; what they vouch for is kept for personOf. */
  take(req: IncomingMessage): void {
    if (this.#seen.has(req)) return;
    const { userHeader, groupsHeader, secretHeader } = this.#settings;
    const name = req.headers[userHeader];
    const groups = groupsHeader ? req.headers[groupsHeader] : undefined;
    const secret = req.headers[secretHeader];
    strip(req, [userHeader, secretHeader, ...(groupsHeader ? [groupsHeader] : [])]);
    const trusted =
      typeof name === "string" && typeof secret === "string" && this.#fromFrontEnd(req.socket.remoteAddress) && safeEqual(secret, this.#settings.secret);
    const user = trusted ? accountName({ name: name.trim() }, "name") : undefined;
    this.#seen.set(req, user ? { user, groups: groupsHeader ? mapGroups(typeof groups === "string" ? groups : "", {}) : undefined } : null);
  }

  /** The person the front end vouched for on this request, if it did. */
  personOf(req: IncomingMessage): FrontEndPerson | undefined {
    this.take(req);
    return this.#seen.get(req) ?? undefined;
  }

  get createAccounts(): boolean {
    return this.#settings.createAccounts;
  }
}

function strip(req: IncomingMessage, names: readonly string[]): void {
  const drop = new Set(names);
  let found = false;
  for (const name of names) if (req.headers[name] !== undefined) found = true;
  if (!found) return;
  for (const name of names) delete req.headers[name];
  const raw: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (!drop.has(req.rawHeaders[i]!.toLowerCase())) raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw);
}
