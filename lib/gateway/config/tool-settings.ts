// gateway.json's `tools` section as declared: one tool, its revisions and who its sessions
// run as. What a schema cannot say (exactly one kind per revision, revisions naming each
// other, paths against the config's folder) is ./gateway-config.ts's, after this has checked the shape.
import { s, type Infer, problem, section } from "../../schema/index.ts";
import { appSchema, rapptureSchema, slurmSchema } from "./served-settings.ts";
import { stdioSchema } from "./stdio-settings.ts";

/** A revision's kinds: exactly one of them names what the revision runs or where it forwards. */
export const KINDS = ["app", "rappture", "stdio", "url", "command", "slurm"] as const;
export const ONE_OF = `one of ${KINDS.map((k) => `"${k}"`).join(", ")}`;

/** `runAs` and `env`, at the top level and per tool. */
export const runAsSchema = problem(s.string({ pattern: "^([A-Za-z_][A-Za-z0-9._-]{0,31}\\$?|@person)$" }), 'must be an OS account name or "@person"');
export const envSchema = problem(s.array(s.string({ pattern: "^[A-Za-z_][A-Za-z0-9_]{0,127}$" })), "must be an array of environment variable names");

export const revisionSchema = problem(
  s.object(
    {
      app: appSchema.optional(),
      rappture: rapptureSchema.optional(),
      stdio: stdioSchema.optional(),
      url: problem(s.string(), "must be an http(s) URL").optional(),
      command: problem(s.array(s.string({ minLength: 1 }), { minItems: 1 }), "must be a non-empty array of strings").optional(),
      slurm: slurmSchema.optional(),
      /** `app`, `rappture` and `stdio` only. */
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
      groups: problem(s.array(s.string({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$" })).optional(), "must be an array of group names"),
      revisions: problem(s.record(revisionSchema), "must be an object of named revisions"),
      runAs: runAsSchema.optional(),
      env: envSchema.optional(),
      catalog: problem(s.boolean(), "must be true or false").optional(),
      catalogRevision: revisionName.optional(),
      defaultRevision: revisionName.optional(),
    },
    { additionalProperties: false },
  ),
  "must be an object",
);
export type ToolFile = Infer<typeof toolSchema>;

/** One tool, from gateway.json or registered in the store. */
export const TOOL = section(toolSchema);
