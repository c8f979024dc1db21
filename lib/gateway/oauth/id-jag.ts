// Enterprise-Managed Authorization: the token endpoint's jwt-bearer grant with an Identity
// Assertion JWT Authorization Grant (ID-JAG, draft-ietf-oauth-identity-assertion-authz-grant,
// as MCP's ext-auth extension uses it). An IdP the operator trusts has already decided that
// this person may use this client for this resource; we check that it said so (signature
// through its JWKS, typ, iss, aud = our issuer, exp, client_id, resource) and only once (jti
// kept in the store until the assertion expires), and answer an access token without any
// consent page. Every refusal is an OAuth error the client can act on.
import type { Client } from "./clients.ts";
import { hashSecret } from "./crypto.ts";
import { discover } from "./upstream-oidc.ts";
import { ProviderUnreachable } from "./fetch-json.ts";
import type { Grants, TokenSet } from "./grants.ts";
import type { AssertionIssuer } from "./identity-settings.ts";
import { RemoteKeySet } from "./jwks.ts";
import { decodeJwt, JwtRejected, verifyJwt } from "./jwt-verify.ts";
import type { OAuthConfig } from "./options.ts";
import { accountName } from "./person-claims.ts";
import { canonicalResource } from "./resources.ts";

export const ASSERTION_USES = "oauth-assertion-uses";
const ID_JAG_TYPE = "oauth-id-jag+jwt";
/** Longer-lived assertions are refused: their jti would have to be remembered that long. */
const MAX_LIFETIME_SECONDS = 3600;

export type AssertionResult =
  | { ok: true; tokens: Omit<TokenSet, "refresh_token"> }
  | { ok: false; error: "invalid_request" | "invalid_grant" | "invalid_target" | "temporarily_unavailable"; description: string };

export class AssertionGrants {
  readonly #config: OAuthConfig;
  readonly #grants: Grants;
  readonly #keys = new Map<string, Promise<RemoteKeySet>>();

  constructor(config: OAuthConfig, grants: Grants) {
    this.#config = config;
    this.#grants = grants;
  }

  async exchange(client: Client, params: Map<string, string>): Promise<AssertionResult> {
    const assertion = params.get("assertion");
    if (!assertion) return refuse("invalid_request", "assertion is required");
    let issuer: AssertionIssuer | undefined;
    try {
      const claimed = decodeJwt(assertion).claims.iss;
      issuer = this.#config.assertionIssuers.find((i) => i.issuer === claimed);
    } catch (err) {
      if (err instanceof JwtRejected) return refuse("invalid_grant", err.message);
      throw err;
    }
    if (!issuer) return refuse("invalid_grant", "the assertion's issuer is not trusted by this hub");
    const now = Math.floor(this.#config.now() / 1000);
    let claims;
    try {
      const keys = await this.#keySet(issuer);
      claims = await verifyJwt(assertion, (header) => keys.key(header), { issuer: issuer.issuer, audience: this.#config.issuer, type: ID_JAG_TYPE, now });
    } catch (err) {
      if (err instanceof JwtRejected) return refuse("invalid_grant", err.message);
      if (err instanceof ProviderUnreachable)
        return refuse("temporarily_unavailable", "the assertion's issuer can't be reached to check it; try again shortly");
      throw err;
    }
    if (claims.client_id !== client.client_id) return refuse("invalid_grant", "the assertion was issued to another client");
    const jti = claims.jti;
    if (typeof jti !== "string" || jti === "" || jti.length > 256) return refuse("invalid_grant", "the assertion has no jti");
    if ((claims.exp as number) - (typeof claims.iat === "number" ? claims.iat : now) > MAX_LIFETIME_SECONDS) {
      return refuse("invalid_grant", "the assertion lives longer than an hour");
    }
    const resource = typeof claims.resource === "string" ? canonicalResource(this.#config.publicUrl, claims.resource) : false;
    if (resource === false) return refuse("invalid_target", "the assertion names no resource of this hub");
    const asked = params.get("resource");
    if (asked !== undefined && canonicalResource(this.#config.publicUrl, asked) !== resource) {
      return refuse("invalid_target", "resource does not match the assertion's");
    }
    const user = accountName(claims, issuer.nameClaim);
    const groups = user ? await this.#config.accounts.groupsOf(user) : null;
    if (!user || !groups) return refuse("invalid_grant", "the assertion names no account of this hub");
    if (!(await this.#config.resourceAccess(resource, groups))) return refuse("invalid_grant", "the account has no access to that resource");
    // Checked last, so a refused request can't burn the assertion; the first use wins across processes.
    const use = hashSecret(`${issuer.issuer}\n${jti}`);
    if (!(await this.#config.store.create(ASSERTION_USES, use, { expires_at: ((claims.exp as number) + 60) * 1000 }))) {
      this.#config.logger.warn("identity assertion replayed", { client_id: client.client_id });
      return refuse("invalid_grant", "the assertion was already used");
    }
    this.#config.logger.info("identity assertion exchanged", { user, client_id: client.client_id });
    return { ok: true, tokens: await this.#grants.issueForAssertion(client.client_id, user, resource) };
  }

  #keySet(issuer: AssertionIssuer): Promise<RemoteKeySet> {
    let keys = this.#keys.get(issuer.issuer);
    if (!keys) {
      keys = issuer.jwksUri
        ? Promise.resolve(new RemoteKeySet(issuer.jwksUri, this.#config.now))
        : discover(issuer.issuer).then((d) => new RemoteKeySet(d.jwks_uri, this.#config.now));
      // A failed discovery is not kept: the next request asks again.
      keys.catch(() => this.#keys.delete(issuer.issuer));
      this.#keys.set(issuer.issuer, keys);
    }
    return keys;
  }
}

function refuse(error: Extract<AssertionResult, { ok: false }>["error"], description: string): AssertionResult {
  return { ok: false, error, description };
}
