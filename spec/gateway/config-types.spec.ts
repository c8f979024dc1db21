// gateway.json's types come from its declarations: each converted type carries every key its
// section declares (but those read into something else), so a key added to a declaration
// shows up in the type, and the parsers hand every declared key on. Checked by `npm run
// typecheck` (the type cases) and at run time (the keys the parsers return).
import { test } from "node:test";
import assert from "node:assert/strict";
import { s, type Converted, type Filled, type Infer, type Present } from "../../lib/schema/index.ts";
import type { ChildIdentity, GatewayConfig, RevisionSpec, ToolSpec } from "../../lib/gateway/config/gateway-config.ts";
import { gatewayConfigSchema, parseGatewayConfig } from "../../lib/gateway/config/gateway-config.ts";
import { auditSchema, type AuditSettings } from "../../lib/gateway/config/audit-settings.ts";
import { connectorSchema, type ConnectorSettings } from "../../lib/gateway/config/connector-settings.ts";
import { registrySchema, type RegistrySettings } from "../../lib/gateway/config/registry-settings.ts";
import { slurmSchema, type SlurmRevision } from "../../lib/gateway/config/served-settings.ts";
import { type KINDS, type revisionSchema, toolSchema } from "../../lib/gateway/config/tool-settings.ts";
import { oauthObjectSchema, type OAuthSettings } from "../../lib/gateway/oauth/gateway-settings.ts";
import {
  assertionIssuersSchema,
  frontEndSchema,
  identitySchema,
  type AssertionIssuer,
  type FrontEndSettings,
  type IdentitySettings,
} from "../../lib/gateway/oauth/identity-settings.ts";

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
const typeIs = <T extends true>(_proof?: T): void => undefined;

/** Every key `File` declares, but those in `Dropped`, is a key of `Out`. */
type Carries<Out, File, Dropped extends keyof File = never> = [Exclude<keyof File, Dropped>] extends [keyof Out] ? true : false;
/** `Out`'s keys are exactly those `File` declares, less `Dropped`, plus `Added`. */
type KeysAre<Out, File, Dropped extends keyof File = never, Added extends PropertyKey = never> = Equal<keyof Out, Exclude<keyof File, Dropped> | Added>;

type File<S> = Infer<S>;

test("each converted type carries its declaration's keys (checked by the typecheck)", () => {
  typeIs<KeysAre<ConnectorSettings, File<typeof connectorSchema>, "catalogMaxAgeSeconds", "catalogMaxAgeMs">>();
  typeIs<KeysAre<AuditSettings, File<typeof auditSchema>>>();
  typeIs<KeysAre<OAuthSettings, File<typeof oauthObjectSchema>, never, "enabled">>();
  typeIs<KeysAre<IdentitySettings, File<typeof identitySchema>, "accounts", "createAccounts">>();
  typeIs<KeysAre<FrontEndSettings, File<typeof frontEndSchema>, "accounts", "createAccounts">>();
  typeIs<KeysAre<AssertionIssuer, File<typeof assertionIssuersSchema>[number]>>();
  typeIs<KeysAre<ToolSpec, File<typeof toolSchema>, "runAs" | "env">>();
  typeIs<KeysAre<RegistrySettings, File<typeof registrySchema>, never, "inherited">>();
  typeIs<KeysAre<SlurmRevision, File<typeof slurmSchema>, "app" | "rappture">>();
  typeIs<KeysAre<GatewayConfig, File<typeof gatewayConfigSchema>, "runAs" | "env">>();
  typeIs<Equal<keyof ChildIdentity, "runAs" | "env">>();
  // A revision is one of the declared kinds, each named by the key that holds its value.
  typeIs<Equal<RevisionSpec["kind"], (typeof KINDS)[number]>>();
  typeIs<Equal<Exclude<keyof File<typeof revisionSchema>, "isolation">, (typeof KINDS)[number]>>();
  typeIs<Equal<Extract<RevisionSpec, { kind: "stdio" }>["stdio"], readonly string[]>>();
  typeIs<Carries<Extract<RevisionSpec, { kind: "app" }>, File<typeof revisionSchema>, Exclude<(typeof KINDS)[number], "app">>>();
  // Values keep their declared types; filled ones lose `undefined`, present ones keep it.
  typeIs<Equal<ToolSpec["groups"], readonly string[]>>();
  typeIs<Equal<AuditSettings["sink"], "file" | "stdout" | "off">>();
  typeIs<Equal<OAuthSettings["trustedUserHeader"], string | undefined>>();
  // @ts-expect-error a present key is not optional: the parser always sets it
  typeIs<Equal<Pick<OAuthSettings, "trustedUserHeader">, { readonly trustedUserHeader?: string }>>();
});

test("a key added to a declaration shows up in the converted type; a hand-written type would drift", () => {
  const declared = s.object({ seconds: s.number().default(1), label: s.string().optional(), added: s.boolean().default(false) });
  type Out = Converted<Present<Filled<Infer<typeof declared>, "label">, never>, { ms: number }, "seconds">;
  typeIs<Equal<Out, { readonly label: string; readonly added: boolean; readonly ms: number }>>();
  typeIs<Carries<Out, Infer<typeof declared>, "seconds">>();
  // @ts-expect-error a type written by hand before `added` was declared no longer carries the declaration
  typeIs<Carries<{ label: string; ms: number }, Infer<typeof declared>, "seconds">>();
  const maybe = s.object({ header: s.string().optional(), list: s.array(s.string()) });
  typeIs<Equal<Converted<Present<Infer<typeof maybe>, "header">>, { readonly header: string | undefined; readonly list: readonly string[] }>>();
});

/** The keys an object schema (or its `false` alternative's, or its items') declares. */
const declaredKeys = (schema: { toJSON(): Record<string, unknown> }): string[] => {
  const json = schema.toJSON();
  const object = Array.isArray(json.anyOf)
    ? (json.anyOf as Array<Record<string, unknown>>).find((m) => m.type === "object")!
    : ((json.items as Record<string, unknown> | undefined) ?? json);
  return Object.keys(object.properties as object);
};

test("the parsers hand every declared key on (what the types promise is there)", () => {
  const config = parseGatewayConfig(
    {
      publicUrl: "https://hub.example",
      allowedHosts: ["hub.local"],
      tools: {
        demo: {
          groups: ["lab"],
          catalog: true,
          revisions: {
            default: { url: "http://127.0.0.1:9/" },
            batch: { slurm: { app: "/a.ts", workdir: "/w", partition: "p", time: "1:00", sbatch: ["--mem=1G"] } },
          },
          catalogRevision: "default",
          defaultRevision: "default",
          runAs: "nobody",
          env: ["HOME"],
        },
      },
      limits: {},
      oauth: {
        trustedUserHeader: "X-User",
        registrationAllowlist: ["https://ok.example/"],
        registrationGroups: ["lab"],
        clientAddressHeader: "X-Forwarded-For",
        identity: { issuer: "https://idp.example", clientId: "hub", clientSecretFile: "/s", label: "IdP", groupsPrefix: "hub-" },
        frontEnd: { userHeader: "X-U", groupsHeader: "X-G", secretHeader: "X-S", secretFile: "/s", from: ["127.0.0.1"] },
        assertionIssuers: [{ issuer: "https://idp.example", jwksUri: "https://idp.example/jwks", nameClaim: "sub" }],
      },
      store: "postgres://hub@127.0.0.1:5432/hub",
      connector: {},
      admin: {},
      registry: {},
      audit: { sink: "stdout" },
    },
    "/hub",
  );
  const has = (value: object, schema: Parameters<typeof declaredKeys>[0], dropped: string[] = []) =>
    assert.deepEqual(
      declaredKeys(schema).filter((k) => !dropped.includes(k) && !Object.hasOwn(value, k)),
      [],
    );
  has(config, gatewayConfigSchema, ["runAs", "env"]);
  has(config.tools.demo!, toolSchema, ["runAs", "env"]);
  has(config.connector, connectorSchema, ["catalogMaxAgeSeconds"]);
  has(config.audit, auditSchema, ["dir"]);
  has(config.registry, registrySchema);
  has(config.oauth, oauthObjectSchema);
  has(config.oauth.identity!, identitySchema, ["accounts", "groupsMap"]);
  has(config.oauth.frontEnd!, frontEndSchema, ["accounts"]);
  has(config.oauth.assertionIssuers![0]!, assertionIssuersSchema);
  const batch = config.tools.demo!.revisions.batch!;
  assert.equal(batch.kind, "slurm");
  if (batch.kind === "slurm") has(batch.slurm, slurmSchema, ["rappture"]);
});
