// The gateway as a relying party of the hub's OpenID provider: discovery, the authorization
// request (code + PKCE S256 + state + nonce), the code exchange with the client secret, and
// the ID token's verification (JWKS signature, iss, aud, exp, nonce, azp). Everything the
// provider sends is checked here; the sign-in pages only see a verified set of claims.
import { createHash } from "node:crypto";
import { fetchJson, ProviderUnreachable } from "./fetch-json.ts";
import { RemoteKeySet } from "./jwks.ts";
import { JwtRejected, verifyJwt, type Claims } from "./jwt-verify.ts";

export interface ProviderEndpoints {
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly jwks_uri: string;
}

/** A discovery document is kept this long, then fetched again on the next sign-in. */
const DISCOVERY_MS = 3600_000;

/** The issuer's discovery document (OpenID Connect Discovery 1.0), checked to be about that issuer. */
export async function discover(issuer: string): Promise<ProviderEndpoints> {
  const doc = await fetchJson(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`);
  if (doc.issuer !== issuer) throw new ProviderUnreachable("the provider's discovery document names another issuer");
  for (const key of ["authorization_endpoint", "token_endpoint", "jwks_uri"] as const) {
    if (typeof doc[key] !== "string" || !/^https?:\/\//.test(doc[key])) throw new ProviderUnreachable(`the provider's discovery document has no ${key}`);
  }
  return doc as unknown as ProviderEndpoints;
}

export interface RelyingPartyOptions {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes?: readonly string[];
  readonly now: () => number;
}

export class OpenIdRelyingParty {
  readonly #options: RelyingPartyOptions;
  #endpoints: { value: Promise<ProviderEndpoints>; until: number } | undefined;
  #keys: RemoteKeySet | undefined;

  constructor(options: RelyingPartyOptions) {
    this.#options = options;
  }

  /** Where to send the browser; throws ProviderUnreachable when discovery fails. */
  async authorizationUrl(redirectUri: string, state: string, nonce: string, verifier: string): Promise<string> {
    const url = new URL((await this.#discovered()).authorization_endpoint);
    const params = {
      response_type: "code",
      client_id: this.#options.clientId,
      redirect_uri: redirectUri,
      scope: (this.#options.scopes ?? ["openid", "profile", "groups"]).join(" "),
      state,
      nonce,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.href;
  }

  /** The verified ID token's claims for this code; JwtRejected for a bad token, ProviderUnreachable when the provider can't answer. */
  async redeem(code: string, redirectUri: string, verifier: string, nonce: string): Promise<Claims> {
    const endpoints = await this.#discovered();
    const basic = Buffer.from(`${encodeURIComponent(this.#options.clientId)}:${encodeURIComponent(this.#options.clientSecret)}`).toString("base64");
    const answer = await fetchJson(endpoints.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier }),
    });
    if (typeof answer.id_token !== "string") {
      // The provider's error code is safe to log; its description might echo what we sent.
      throw new JwtRejected(`the provider refused the code (${typeof answer.error === "string" ? answer.error.slice(0, 40) : "no ID token"})`);
    }
    return this.verifyIdToken(answer.id_token, nonce);
  }

  /** The claims of an ID token from our provider for this sign-in's nonce; JwtRejected otherwise. */
  async verifyIdToken(idToken: string, nonce: string): Promise<Claims> {
    const endpoints = await this.#discovered();
    this.#keys ??= new RemoteKeySet(endpoints.jwks_uri, this.#options.now);
    const keys = this.#keys;
    const claims = await verifyJwt(idToken, (header) => keys.key(header), {
      issuer: this.#options.issuer,
      audience: this.#options.clientId,
      now: Math.floor(this.#options.now() / 1000),
    });
    if (typeof claims.nonce !== "string" || claims.nonce !== nonce) throw new JwtRejected("the ID token's nonce is not this sign-in's");
    // Several audiences: the token must say it was issued to us (OpenID Connect Core 3.1.3.7).
    if (Array.isArray(claims.aud) && claims.aud.length > 1 && claims.azp !== this.#options.clientId)
      throw new JwtRejected("the ID token was issued to another client");
    if (typeof claims.sub !== "string" || claims.sub === "") throw new JwtRejected("the ID token names nobody");
    return claims;
  }

  #discovered(): Promise<ProviderEndpoints> {
    const now = this.#options.now();
    if (!this.#endpoints || this.#endpoints.until <= now) {
      const value = discover(this.#options.issuer);
      this.#endpoints = { value, until: now + DISCOVERY_MS };
      // A failed discovery is not kept: the next sign-in asks again.
      value.catch(() => {
        if (this.#endpoints?.value === value) this.#endpoints = undefined;
      });
    }
    return this.#endpoints.value;
  }
}
