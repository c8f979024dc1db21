// Pins the gateway entry point (`hubmcp/gateway`): a new export, or a lost one, is deliberate.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as gateway from "../../lib/gateway/index.ts";
import type * as Types from "../../lib/gateway/index.ts";

test("the gateway entry exports exactly its public API", async () => {
  assert.deepEqual(Object.keys(gateway).sort(), [
    "AccountError",
    "ApiTokens",
    "ConfigError",
    "FileRecordStore",
    "MemoryRecordStore",
    "OAuthServer",
    "PostgresRecordStore",
    "StoreAccountDirectory",
    "StoreFullError",
    "StoreUnavailableError",
    "parseGatewayConfig",
    "parseGatewayConfigText",
    "startGateway",
  ]);
  const pkg = (await import("../../package.json", { with: { type: "json" } })).default as { exports: Record<string, unknown> };
  assert.deepEqual(pkg.exports["./gateway"], { types: "./dist/lib/gateway/index.d.ts", default: "./dist/lib/gateway/index.js" });
});

type PublicTypes = [
  Types.GatewayOptions,
  Types.RunningGateway,
  Types.GatewayConfig,
  Types.GatewayLimits,
  Types.ToolSpec,
  Types.RevisionSpec,
  Types.SlurmRevision,
  Types.Principal,
  Types.TokenVerifier,
  Types.AccountDirectory,
  Types.RecordStore,
  Types.AuthorizationServer,
  Types.OAuthServerOptions,
  Types.OAuthSettings,
  Types.PostgresStoreOptions,
];
export type { PublicTypes };
