// The seams between the gateway's parts. The OAuth authorization server (oauth/) and the
// record stores (store/) on one side, and the rest of the gateway (routing, relaying, tool
// sessions) on the other, are built separately and meet only here, so either side can be
// replaced or tested alone. One contract spec per interface lives beside the
// implementations (spec/gateway/*-contract.ts).

/** Who a request acts for, after its bearer token was checked. */
export interface Principal {
  /** Account name (from `hub_gateway user add`). Tool sessions bind to this, never to token bytes. */
  readonly user: string;
  /** Groups as they are now; a tool's `groups` are matched against these. */
  readonly groups: readonly string[];
  /** How the bearer was issued. */
  readonly kind: "api-token" | "oauth";
  /**
   * The resource an OAuth token was issued for (RFC 8707), e.g. `{publicUrl}/api/mcp/mcpdemo/mcp`,
   * or undefined for a token valid across the whole hub (API tokens, OAuth tokens for the hub).
   */
  readonly audience?: string;
}

/**
 * Checks a bearer token for a resource. Answers null when the token is unknown, expired,
 * revoked, tampered with, or was issued for another resource; never throws for bad input.
 * Implementations compare secrets in constant time and store only hashes.
 */
export interface TokenVerifier {
  verify(token: string, resource: string): Promise<Principal | null>;
  /**
   * Optional: what `verify` would answer, at once, when the verifier can tell without I/O:
   * the principal, null for a token it would refuse, or undefined when only `verify` can say.
   * A request that gets its answer here waits for no promise (the gateway's hop runs on this).
   */
  verifyNow?(token: string, resource: string): Principal | null | undefined;
}

/** Accounts of the hub: created by `hub_gateway user add`, used by the login page and refresh. */
export interface AccountDirectory {
  /** The account when the password matches (scrypt, constant-time), else null. */
  verifyPassword(user: string, password: string): Promise<{ user: string; groups: readonly string[] } | null>;
  /** Current groups of an existing account, or null when it no longer exists. */
  groupsOf(user: string): Promise<readonly string[] | null>;
  /** Records a person an identity provider vouched for (groups replaced; created when `create`); false when refused. */
  provision?(user: string, groups: readonly string[], create: boolean): Promise<boolean>;
}

/**
 * Shared persistent state in the data dir. Two gateway processes on one data dir must see
 * each other's writes, so every record is its own file (no read-modify-write of a shared
 * file) written crash-safely (temp file + fsync + rename).
 */
export interface RecordStore {
  get<T>(collection: string, id: string): Promise<T | undefined>;
  put(collection: string, id: string, value: unknown): Promise<void>;
  /** Creates the record only if absent; answers false when another writer got there first. */
  create(collection: string, id: string, value: unknown): Promise<boolean>;
  delete(collection: string, id: string): Promise<void>;
  /**
   * Atomic read-modify-write of one record: `change` gets the record as it is now (undefined
   * when absent) and answers the value to write, or undefined to leave the record as it is.
   * It may be called more than once (after a conflict), so it must be pure. Answers the value
   * stored afterwards (the one written, or the current one when `change` answered undefined).
   * Atomic against every other update, put, create and delete of the record, in this process
   * and in every other process on the same data: security decisions (revoking a grant,
   * rotating a refresh token, counting sessions) rest on it.
   */
  update<T>(collection: string, id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined>;
  list<T>(collection: string): Promise<Array<{ id: string; value: T }>>;
  /** A 32-byte secret created once per data dir (first writer wins) and shared by every process. */
  secret(name: string): Promise<Buffer>;
}

/**
 * The OAuth authorization server as the gateway sees it: a set of routes on the gateway's
 * own origin, and the verifier for the tokens it issues.
 */
export interface AuthorizationServer {
  /** Serves the server's own paths; answers false (having written nothing) for any other path. */
  handle(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse): Promise<boolean>;
  /**
   * The same, answering false at once (no promise) for a path not its own: the gateway asks
   * before every request it serves itself, and uses this where a server has it.
   */
  handleNow?(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse): boolean | Promise<boolean>;
  readonly verifier: TokenVerifier;
  /** The signed-in person's side of the server, where it has sign-in pages: the gateway's account page rests on it. */
  readonly account?: AccountHost;
  /** The same browser session for the operator's page: its own CSRF tokens, and sign-in ending there. */
  readonly admin?: SignedInPage;
  /** Resolves when the writes it does in the background (a grant's last use) are done; the gateway's close waits for it. */
  settled?(): Promise<void>;
}

/** An OAuth grant as its person sees it on their account page. */
export interface ConnectedApp {
  readonly id: string;
  readonly clientName: string;
  readonly createdAt: number;
  /** When the application last refreshed its token or used one, if ever. */
  readonly usedAt?: number;
}

type PageHandler = (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, query: string) => Promise<void>;

/**
 * One of the hub's own pages on the authorization server's browser session: who is signed in
 * (however they signed in), CSRF tokens bound to that session and page, its sign-in pages
 * ending back on this page, its limits, and a path under the sign-in cookie's to serve from.
 */
export interface SignedInPage {
  user(req: import("node:http").IncomingMessage): Promise<string | undefined>;
  /**
   * A CSRF token for this page's forms, bound to this browser and person, and the cookie to
   * set when the browser has none yet (a person a front proxy signed in).
   */
  csrfToken(req: import("node:http").IncomingMessage, user: string): Promise<{ token: string; setCookie: string[] }>;
  csrfValid(req: import("node:http").IncomingMessage, user: string, token: string | undefined): Promise<boolean>;
  /** Answers with the sign-in page; signed in, the browser comes back to this page. */
  signIn(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse): Promise<void>;
  /** Ends this browser's session; answers the cookies that clear it. */
  signOut(req: import("node:http").IncomingMessage): Promise<string[]>;
  /** Counts one request of this address; the seconds to wait when over the limit, else 0. */
  hit(req: import("node:http").IncomingMessage): number | Promise<number>;
  /** Serves the page at `{publicUrl}{path}` from now on; answers that path. */
  serve(page: { GET: PageHandler; POST: PageHandler }): string;
}

/** What the account page needs of the authorization server besides its session: the person's grants. */
export interface AccountHost extends SignedInPage {
  grantsOf(user: string): Promise<ConnectedApp[]>;
  /** Revokes one of `user`'s own grants (its refresh and access tokens end); false when `user` has none with that id. */
  revokeGrant(user: string, id: string): Promise<boolean>;
}
