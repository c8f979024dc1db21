// Registered clients and metadata-document clients behind one lookup, plus client
// authentication for the token and revocation endpoints.
import { hashSecret, safeEqual } from "./crypto.ts";
import { ClientMetadataDocuments, isMetadataDocumentId } from "./client-metadata-document.ts";
import { UNUSED_CLIENT_LIFETIME_MS, type OAuthConfig } from "./options.ts";

export type AuthMethod = "none" | "client_secret_post" | "client_secret_basic";

/** A registered client as stored; the secret only as its hash. */
export interface ClientRecord {
  client_id: string;
  client_name?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: AuthMethod;
  client_id_issued_at: number;
  secret_hash?: string;
  /** Set once a grant was approved for it; unused clients expire. */
  used?: boolean;
}

export interface Client {
  readonly client_id: string;
  readonly client_name: string | undefined;
  readonly redirect_uris: readonly string[];
  readonly token_endpoint_auth_method: AuthMethod;
  readonly secret_hash: string | undefined;
  readonly registered: boolean;
}

export const CLIENTS = "oauth-clients";

export type ClientAuthentication = { ok: true; client: Client } | { ok: false; error: "invalid_client" | "invalid_request"; description: string };

const INVALID_CLIENT = "Client authentication failed: unknown client_id or wrong client secret";

export class ClientDirectory {
  readonly #config: OAuthConfig;
  readonly #documents: ClientMetadataDocuments;

  constructor(config: OAuthConfig) {
    this.#config = config;
    this.#documents = new ClientMetadataDocuments({
      allowPrivateAddresses: config.allowPrivateMetadata,
      timeoutMs: config.metadataTimeoutMs,
      maxBytes: config.metadataMaxBytes,
      now: config.now,
    });
  }

  async find(clientId: string): Promise<Client | undefined> {
    if (typeof clientId !== "string" || clientId.length === 0 || clientId.length > 512) return undefined;
    if (isMetadataDocumentId(clientId)) {
      const doc = await this.#documents.resolve(clientId);
      if (!doc) return undefined;
      return { ...doc, token_endpoint_auth_method: "none", secret_hash: undefined, registered: false };
    }
    const record = await this.#config.store.get<ClientRecord>(CLIENTS, clientId);
    if (!record) return undefined;
    if (!record.used && record.client_id_issued_at * 1000 + UNUSED_CLIENT_LIFETIME_MS <= this.#config.now()) {
      await this.#config.store.delete(CLIENTS, clientId);
      return undefined;
    }
    return {
      client_id: record.client_id,
      client_name: record.client_name,
      redirect_uris: record.redirect_uris,
      token_endpoint_auth_method: record.token_endpoint_auth_method,
      secret_hash: record.secret_hash,
      registered: true,
    };
  }

  async markUsed(client: Client): Promise<void> {
    if (!client.registered) return;
    // Never a put of an old copy: the sweeper may have removed the client meanwhile.
    await this.#config.store.update<ClientRecord>(CLIENTS, client.client_id, (record) => (record && !record.used ? { ...record, used: true } : undefined));
  }

  /**
   * Client authentication at the token and revocation endpoints (RFC 6749 section 2.3):
   * HTTP Basic, a secret in the form, or a bare client_id for public clients.
   */
  async authenticate(params: Map<string, string>, authorization: string | undefined): Promise<ClientAuthentication> {
    let clientId = params.get("client_id");
    let secret = params.get("client_secret");
    if (authorization?.toLowerCase().startsWith("basic ")) {
      const decoded = Buffer.from(authorization.slice(6).trim(), "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon < 0 || secret !== undefined) return { ok: false, error: "invalid_client", description: INVALID_CLIENT };
      const basicId = safeDecode(decoded.slice(0, colon));
      if (basicId === undefined || (clientId !== undefined && clientId !== basicId)) {
        return { ok: false, error: "invalid_client", description: INVALID_CLIENT };
      }
      clientId = basicId;
      secret = safeDecode(decoded.slice(colon + 1));
    }
    if (!clientId) return { ok: false, error: "invalid_request", description: "client_id is required" };
    const client = await this.find(clientId);
    if (!client) return { ok: false, error: "invalid_client", description: INVALID_CLIENT };
    if (client.secret_hash === undefined) {
      // A public client; a secret it sends anyway proves nothing and is ignored.
      return { ok: true, client };
    }
    if (secret === undefined || !safeEqual(hashSecret(secret), client.secret_hash)) {
      return { ok: false, error: "invalid_client", description: INVALID_CLIENT };
    }
    return { ok: true, client };
  }
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}
