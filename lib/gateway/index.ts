// The hub gateway's public API, a separate entry point (`hubmcp/gateway`) so tool server
// apps importing the package root never load it.
export { startGateway, type GatewayOptions, type RunningGateway } from "./server.ts";
export {
  parseGatewayConfig,
  parseGatewayConfigText,
  ConfigError,
  type GatewayConfig,
  type ToolSpec,
  type RevisionSpec,
  type SlurmRevision,
} from "./config/gateway-config.ts";
export type { GatewayLimits } from "./config/limits-settings.ts";
export { StoreAccountDirectory, AccountError } from "./identity/accounts.ts";
export { ApiTokens } from "./identity/api-tokens.ts";
export { FileRecordStore } from "./store/file-record-store.ts";
export { MemoryRecordStore } from "./store/memory-record-store.ts";
export { PostgresRecordStore, type PostgresStoreOptions } from "./store/postgres-record-store.ts";
export { StoreFullError, StoreUnavailableError } from "./contracts/store-errors.ts";
export { OAuthServer } from "./oauth/server.ts";
export type { OAuthServerOptions } from "./oauth/options.ts";
export type { OAuthSettings } from "./oauth/gateway-settings.ts";
export type { Principal, TokenVerifier, AccountDirectory, RecordStore, AuthorizationServer } from "./contracts/interfaces.ts";
