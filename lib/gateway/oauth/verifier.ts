// Checks the access tokens this server issued. The signature and expiry are checked without
// I/O; the grant is then read on every request, so a revocation takes effect at once in every
// process on the data dir, and the account's groups are read as they are now.
import type { Principal, TokenVerifier } from "../contracts/interfaces.ts";
import { isStoreUnavailable } from "../contracts/store-errors.ts";
import { readAccessToken } from "./jws.ts";
import type { Grants } from "./grants.ts";
import { canonicalResource } from "./resources.ts";
import type { OAuthConfig } from "./options.ts";

export class OAuthTokenVerifier implements TokenVerifier {
  readonly #config: OAuthConfig;
  readonly #grants: Grants;

  constructor(config: OAuthConfig, grants: Grants) {
    this.#config = config;
    this.#grants = grants;
  }

  async verify(token: string, resource: string): Promise<Principal | null> {
    try {
      const claims = readAccessToken(token, await this.#grants.signingKey());
      if (!claims || claims.iss !== this.#config.issuer) return null;
      if (claims.exp * 1000 <= this.#config.now()) return null;
      const hubWide = claims.aud === this.#config.publicUrl;
      if (!hubWide && canonicalResource(this.#config.publicUrl, resource) !== claims.aud) return null;
      const grant = await this.#grants.activeGrant(claims.gid);
      if (!grant || grant.user !== claims.sub) return null;
      const groups = await this.#config.accounts.groupsOf(claims.sub);
      if (!groups) return null;
      this.#grants.noteUse(claims.gid);
      return { user: claims.sub, groups, kind: "oauth", ...(hubWide ? {} : { audience: claims.aud }) };
    } catch (err) {
      if (isStoreUnavailable(err)) throw err; // not a bad token: the caller answers 503
      return null;
    }
  }
}
