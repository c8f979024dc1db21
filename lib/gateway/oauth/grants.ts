// Grants and the credentials issued under them. A grant is one user's approval of one client
// for one resource; its code, access tokens and refresh-token family all point back to it, so
// revoking the grant (replayed code, reused refresh token, RFC 7009) ends every one of them.
// Every change to a grant is a compare-and-change through RecordStore.update, so a refresh
// racing a revocation (in this process or another) can never write the grant back unrevoked.
import { hashSecret, randomToken, safeEqual } from "./crypto.ts";
import { signAccessToken } from "./jws.ts";
import { verifierMatches } from "./pkce.ts";
import { canonicalResource } from "./resources.ts";
import { ACCESS_TOKEN_SECONDS, CODE_LIFETIME_MS, REFRESH_LIFETIME_MS, type OAuthConfig } from "./options.ts";
import type { Client } from "./clients.ts";

export const GRANTS = "oauth-grants";
export const CODES = "oauth-codes";
export const CODE_USES = "oauth-code-uses";
export const REFRESH = "oauth-refresh-tokens";
/** When a grant's access token last served a request: apart from the grant, so noting it races no revocation. */
export const GRANT_USES = "oauth-grant-uses";
/** A grant's use is written at most this often per process: one write a minute for a busy client, not one per request. */
const USE_EVERY_MS = 60_000;
const USES_KEPT = 10_000;

export interface GrantRecord {
  client_id: string;
  user: string;
  /** RFC 8707 resource; absent for the whole hub. */
  resource?: string;
  created_at: number;
  revoked?: boolean;
  /** Generation of the newest refresh token redeemed so far: only a newer one may be redeemed. */
  used_generation: number;
  /** Who won the latest rotation (a random nonce), so a refresh knows whether it was its own. */
  rotation?: string;
  /** The client's name when approved, for the person's account page (the client's record may be swept later). */
  client_name?: string;
  /** The last refresh: when the application last came back for a token. */
  used_at?: number;
  /** A grant with no refresh token (an identity assertion's) ends with its access token. */
  expires_at?: number;
}

interface CodeRecord {
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  challenge: string;
  expires_at: number;
}

interface RefreshRecord {
  grant_id: string;
  client_id: string;
  generation: number;
  expires_at: number;
}

export interface TokenSet {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
}

export type GrantResult = { ok: true; tokens: TokenSet } | { ok: false; error: "invalid_grant" | "invalid_target"; description: string };

const BAD_CODE = "the authorization code is invalid, expired or already used";
const BAD_REFRESH = "the refresh token is invalid, expired or revoked";

export class Grants {
  readonly #config: OAuthConfig;
  #key: Promise<Buffer> | undefined;
  readonly #usedAt = new Map<string, number>();
  /** Use notes still being written: the gateway's close waits for them, so no write outlives it. */
  readonly #writing = new Set<Promise<unknown>>();

  constructor(config: OAuthConfig) {
    this.#config = config;
  }

  signingKey(): Promise<Buffer> {
    this.#key ??= this.#config.store.secret("oauth-access-token-key");
    return this.#key;
  }

  /** Records an approved grant and answers the authorization code for it. */
  async approve(client: Client, user: string, resource: string | undefined, redirectUri: string, challenge: string): Promise<string> {
    const grantId = randomToken(18);
    const grant: GrantRecord = {
      client_id: client.client_id,
      user,
      ...(resource !== undefined ? { resource } : {}),
      created_at: this.#config.now(),
      used_generation: 0,
      ...(client.client_name !== undefined ? { client_name: client.client_name } : {}),
    };
    await this.#config.store.put(GRANTS, grantId, grant);
    const code = randomToken();
    const record: CodeRecord = {
      grant_id: grantId,
      client_id: client.client_id,
      redirect_uri: redirectUri,
      challenge,
      expires_at: this.#config.now() + CODE_LIFETIME_MS,
    };
    await this.#config.store.put(CODES, hashSecret(code), record);
    return code;
  }

  async redeemCode(client: Client, params: Map<string, string>): Promise<GrantResult> {
    const code = params.get("code");
    if (!code || code.length > 200) return { ok: false, error: "invalid_grant", description: BAD_CODE };
    const id = hashSecret(code);
    const record = await this.#config.store.get<CodeRecord>(CODES, id);
    if (!record) return { ok: false, error: "invalid_grant", description: BAD_CODE };
    // Everything is checked before the code is consumed: whoever merely saw the code (a log,
    // a referrer) can't burn it, and can't get the grant revoked as a replay either.
    if (record.expires_at <= this.#config.now() || !safeEqual(record.client_id, client.client_id)) {
      return { ok: false, error: "invalid_grant", description: BAD_CODE };
    }
    const redirectUri = params.get("redirect_uri");
    if (redirectUri !== undefined && redirectUri !== record.redirect_uri) {
      return { ok: false, error: "invalid_grant", description: "redirect_uri does not match the authorization request" };
    }
    if (!verifierMatches(params.get("code_verifier"), record.challenge)) {
      return { ok: false, error: "invalid_grant", description: "code_verifier does not match the code challenge" };
    }
    const grant = await this.#config.store.get<GrantRecord>(GRANTS, record.grant_id);
    if (!grant || grant.revoked) return { ok: false, error: "invalid_grant", description: BAD_CODE };
    if (!this.#sameResource(params.get("resource"), grant)) {
      return { ok: false, error: "invalid_target", description: "resource does not match the authorization request" };
    }
    // First writer wins across processes: exactly one valid exchange consumes the code; a
    // second one with the right verifier means the code leaked along with it (RFC 6749 4.1.2).
    if (!(await this.#config.store.create(CODE_USES, id, { at: this.#config.now() }))) {
      await this.revokeGrant(record.grant_id);
      this.#config.logger.warn("oauth code replayed; grant revoked", { client_id: record.client_id });
      return { ok: false, error: "invalid_grant", description: BAD_CODE };
    }
    return { ok: true, tokens: await this.#issue(record.grant_id, grant, 1) };
  }

  /**
   * Rotation: each refresh token is good once. The grant remembers the newest generation
   * redeemed; a token not newer than that (reuse: it was copied, or the client replays it)
   * revokes the whole family, with no grace window: a client that lost the answer signs in again.
   */
  async refresh(client: Client, params: Map<string, string>): Promise<GrantResult> {
    const token = params.get("refresh_token");
    if (!token || token.length > 200) return { ok: false, error: "invalid_grant", description: BAD_REFRESH };
    const record = await this.#config.store.get<RefreshRecord>(REFRESH, hashSecret(token));
    if (!record || record.expires_at <= this.#config.now() || !safeEqual(record.client_id, client.client_id)) {
      return { ok: false, error: "invalid_grant", description: BAD_REFRESH };
    }
    const grant = await this.#config.store.get<GrantRecord>(GRANTS, record.grant_id);
    if (!grant || grant.revoked) return { ok: false, error: "invalid_grant", description: BAD_REFRESH };
    const groups = await this.#config.accounts.groupsOf(grant.user);
    if (!groups || !(await this.#config.resourceAccess(grant.resource, groups))) {
      await this.revokeGrant(record.grant_id);
      return { ok: false, error: "invalid_grant", description: "the account no longer has access" };
    }
    if (!this.#sameResource(params.get("resource"), grant)) {
      return { ok: false, error: "invalid_target", description: "resource does not match the grant" };
    }
    const claim = randomToken(12);
    const rotated = await this.#config.store.update<GrantRecord>(GRANTS, record.grant_id, (current) =>
      current && !current.revoked && record.generation > current.used_generation
        ? { ...current, used_generation: record.generation, rotation: claim, used_at: this.#config.now() }
        : undefined,
    );
    if (!rotated || rotated.revoked) return { ok: false, error: "invalid_grant", description: BAD_REFRESH };
    if (rotated.rotation !== claim) {
      await this.revokeGrant(record.grant_id);
      this.#config.logger.warn("oauth refresh token reused; grant revoked", { client_id: record.client_id });
      return { ok: false, error: "invalid_grant", description: BAD_REFRESH };
    }
    return { ok: true, tokens: await this.#issue(record.grant_id, rotated, record.generation + 1) };
  }

  /**
   * An access token for `user` and `resource` without any code or consent (an identity
   * assertion the caller verified): its own grant, so revocation and `user remove` end it,
   * and no refresh token; the client asks the IdP for a new assertion instead.
   */
  async issueForAssertion(clientId: string, user: string, resource: string | undefined): Promise<Omit<TokenSet, "refresh_token">> {
    const now = this.#config.now();
    const grantId = randomToken(18);
    const grant: GrantRecord = {
      client_id: clientId,
      user,
      ...(resource !== undefined ? { resource } : {}),
      created_at: now,
      used_generation: 0,
      expires_at: now + ACCESS_TOKEN_SECONDS * 1000,
    };
    await this.#config.store.put(GRANTS, grantId, grant);
    return { access_token: await this.#sign(grantId, grant), token_type: "Bearer", expires_in: ACCESS_TOKEN_SECONDS };
  }

  async revokeGrant(grantId: string): Promise<void> {
    await this.#config.store.update<GrantRecord>(GRANTS, grantId, (grant) => (grant && !grant.revoked ? { ...grant, revoked: true } : undefined));
  }

  /** RFC 7009: revoking either token of a grant ends the grant. Unknown tokens are not an error. */
  async revokeRefreshToken(client: Client, token: string): Promise<boolean> {
    const record = await this.#config.store.get<RefreshRecord>(REFRESH, hashSecret(token));
    if (!record || !safeEqual(record.client_id, client.client_id)) return false;
    await this.revokeGrant(record.grant_id);
    return true;
  }

  /**
   * Notes that an access token of the grant served a request, for its person's account page.
   * Not awaited and best effort: the request must not wait for it or fail with it.
   */
  noteUse(grantId: string): void {
    const now = this.#config.now();
    if (now - (this.#usedAt.get(grantId) ?? 0) < USE_EVERY_MS) return;
    if (this.#usedAt.size >= USES_KEPT) this.#usedAt.clear();
    this.#usedAt.set(grantId, now);
    const write = this.#config.store.put(GRANT_USES, grantId, { at: now }).catch(() => undefined);
    this.#writing.add(write);
    void write.finally(() => this.#writing.delete(write));
  }

  /** Resolves when every use note begun so far is written (or has failed). */
  async settled(): Promise<void> {
    await Promise.all([...this.#writing]);
  }

  async activeGrant(grantId: string): Promise<GrantRecord | undefined> {
    const grant = await this.#config.store.get<GrantRecord>(GRANTS, grantId);
    return grant && !grant.revoked ? grant : undefined;
  }

  /** A `resource` at the token endpoint may repeat the grant's, never change it. */
  #sameResource(resource: string | undefined, grant: GrantRecord): boolean {
    return resource === undefined || canonicalResource(this.#config.publicUrl, resource) === grant.resource;
  }

  async #issue(grantId: string, grant: GrantRecord, generation: number): Promise<TokenSet> {
    const now = this.#config.now();
    const accessToken = await this.#sign(grantId, grant);
    const refreshToken = randomToken();
    const refresh: RefreshRecord = { grant_id: grantId, client_id: grant.client_id, generation, expires_at: now + REFRESH_LIFETIME_MS };
    await this.#config.store.put(REFRESH, hashSecret(refreshToken), refresh);
    return { access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refreshToken };
  }

  async #sign(grantId: string, grant: GrantRecord): Promise<string> {
    const iat = Math.floor(this.#config.now() / 1000);
    return signAccessToken(
      {
        iss: this.#config.issuer,
        sub: grant.user,
        aud: grant.resource ?? this.#config.publicUrl,
        client_id: grant.client_id,
        gid: grantId,
        iat,
        exp: iat + ACCESS_TOKEN_SECONDS,
        jti: randomToken(12),
      },
      await this.signingKey(),
    );
  }
}
