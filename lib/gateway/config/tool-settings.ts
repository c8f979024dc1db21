// gateway.json's `tools` section as declared: one tool, its revisions and who its sessions
// run as. What a schema cannot say (exactly one kind per revision, revisions naming each
// other, paths against the config's folder) is ./gateway-config.ts's, after this has checked the shape.
import { s, type Converted, type Filled, type Infer, problem, section } from "../../schema/index.ts";
import { appSchema, rapptureSchema, slurmSchema, type SlurmRevision } from "./served-settings.ts";
import { GROUP_NAME_PATTERN } from "../contracts/names.ts";
import { stdioSchema } from "./stdio-settings.ts";

/** A revision's kinds: exactly one of them names what the revision runs or where it forwards. */
export const KINDS = ["app", "rappture", "stdio", "url", "command", "slurm"] as const;
export const ONE_OF = `one of ${KINDS.map((k) => `"${k}"`).join(", ")}`;

/** An OS account (or `@person`), and an environment variable's name: also what the `registry` section lists. */
export const ACCOUNT_PATTERN = "^([A-Za-z_][A-Za-z0-9._-]{0,31}\\$?|@person)$";
export const ENV_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]{0,127}$";

/** `runAs` and `env`, at the top level and per tool. */
export const runAsSchema = problem(s.string({ pattern: ACCOUNT_PATTERN }), 'must be an OS account name or "@person"');
export const envSchema = problem(s.array(s.string({ pattern: ENV_NAME_PATTERN })), "must be an array of environment variable names");

export const revisionSchema = problem(
  s.object(
    {
      app: appSchema.optional(),
      rappture: rapptureSchema.optional(),
      stdio: stdioSchema.optional(),
      url: problem(s.string(), "must be an http(s) URL").optional(),
      command: problem(s.array(s.string({ minLength: 1 }), { minItems: 1 }), "must be a non-empty array of strings").optional(),
      slurm: slurmSchema.optional(),
      /**
       * How an `app`, `rappture` or `stdio` revision's tool server is shared: `process` (one per
       * person, the default) or `shared` (one for everyone, each person in their own MCP sessions;
       * docs/gateway.md, "Isolation").
       */
      isolation: problem(s.enum(["process", "shared"]), 'must be "process" or "shared"').optional(),
    },
    { additionalProperties: false },
  ),
  `must be an object with ${ONE_OF}`,
);
export type RevisionFile = Infer<typeof revisionSchema>;

const revisionName = problem(s.string(), "must name one of the tool's revisions");

export const toolSchema = problem(
  s.object(
    {
      /** Empty: open to every authenticated user. */
      groups: problem(s.array(s.string({ pattern: GROUP_NAME_PATTERN })).optional(), "must be an array of group names"),
      revisions: problem(s.record(revisionSchema), "must be an object of named revisions"),
      runAs: runAsSchema.optional(),
      env: envSchema.optional(),
      /** Listed at `{publicUrl}/mcp` from the gateway's shared catalog (true), or live per caller (false). */
      catalog: problem(s.boolean(), "must be true or false").optional(),
      /** The revision `{publicUrl}/mcp` lists and calls; the default revision unless named. */
      catalogRevision: revisionName.optional(),
      /** The revision a request without `?revision=` gets; `default`. */
      defaultRevision: revisionName.optional(),
    },
    { additionalProperties: false },
  ),
  "must be an object",
);
export type ToolFile = Infer<typeof toolSchema>;

/** One tool, from gateway.json or registered in the store. */
export const TOOL = section(toolSchema);

/** Who a started tool session runs as, and which of the gateway's variables it sees (docs/gateway.md, "Deployment"). */
export type ChildIdentity = Converted<Pick<ToolFile, "runAs" | "env">>;

export type Isolation = NonNullable<RevisionFile["isolation"]>;

/** A checked revision of one kind: the kind named, its value as checked (`Value`), and what else the kind carries. */
type Revision<K extends (typeof KINDS)[number], Extra = ChildIdentity, Value = NonNullable<RevisionFile[K]>> = Converted<
  { kind: K } & { [P in K]: Value } & Extra
>;
/** The kinds that start start_mcp, and their sharing. */
type Started = ChildIdentity & Pick<RevisionFile, "isolation">;

/** A revision as the gateway runs it: exactly one kind, its paths resolved against the config's folder. */
export type RevisionSpec =
  | Revision<"app", Started>
  | Revision<"rappture", Started>
  | Revision<"stdio", ChildIdentity & { cwd: string }>
  | Revision<"url", {}>
  | Revision<"command">
  | Revision<"slurm", ChildIdentity, SlurmRevision>;

/** A tool as the gateway serves it: the defaults filled in, its revisions checked, who runs it folded into each. */
export type ToolSpec = Converted<
  Filled<ToolFile, "groups" | "catalog" | "catalogRevision" | "defaultRevision">,
  { revisions: Readonly<Record<string, RevisionSpec>> },
  "runAs" | "env"
>;
