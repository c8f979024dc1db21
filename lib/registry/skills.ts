// Agent Skills served over MCP (SEP-2640, "Skills Extension", final as merged in
// modelcontextprotocol#2640): a directory holding a SKILL.md becomes one resource per file
// under skill://<name>/<path>, and a skill entry (uri, verbatim frontmatter, every file with
// its sha256 digest and size) for skills/list and skills/get. The directory is read once, at
// registration: what is served is the snapshot the digests describe, bounded in files and
// bytes (measured before anything is read, and each read bounded), without dotfiles, and a
// symlink leading out of the directory is refused.
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, join, relative, resolve, sep } from "node:path";
import { type BoundedRead, readFileAtMost } from "../util/bounded-read.ts";
import { parseFrontmatter } from "./frontmatter.ts";
import { defineResource, type RegisteredResource } from "./resources.ts";

export interface SkillOptions {
  /** Path segments before the skill's name in its URIs (`acme/billing` → skill://acme/billing/<name>/…). */
  prefix?: string;
  /** Most files one skill may hold; 256 by default, at most 65,536. */
  maxFiles?: number;
  /** Most bytes all its files together may hold; 8 MiB by default, at most 1 GiB. Checked from the sizes before any file is read. */
  maxBytes?: number;
}

export interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  /** Every file: its digest and its size in bytes, both of the raw bytes served. */
  resources: { uri: string; digest: string; size: number }[];
}

export interface RegisteredSkill {
  readonly uri: string;
  readonly entry: SkillEntry;
  /** One resource per file, SKILL.md first. */
  readonly files: RegisteredResource[];
}

// Agent Skills naming rules: lowercase letters, digits and single hyphens, at most 64 characters.
const NAME = /^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SEGMENT = /^[A-Za-z0-9._~-]+$/;

// A Map: a file named `x.constructor` must not find Object.prototype's.
const MIME: ReadonlyMap<string, string> = new Map([
  ["md", "text/markdown"],
  ["txt", "text/plain"],
  ["py", "text/x-python"],
  ["sh", "text/x-shellscript"],
  ["js", "text/javascript"],
  ["ts", "text/plain"],
  ["json", "application/json"],
  ["yaml", "application/yaml"],
  ["yml", "application/yaml"],
  ["csv", "text/csv"],
  ["html", "text/html"],
  ["png", "image/png"],
  ["jpg", "image/jpeg"],
  ["jpeg", "image/jpeg"],
  ["svg", "image/svg+xml"],
  ["pdf", "application/pdf"],
]);

function mimeOf(path: string, bytes: Buffer): string {
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  const known = path.includes(".") ? MIME.get(ext) : undefined;
  if (known) return known;
  return isUtf8(bytes) ? "text/plain" : "application/octet-stream";
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return !bytes.includes(0);
  } catch {
    return false;
  }
}

export interface Found {
  /** Relative, `/`-separated. */
  rel: string;
  /** The path read: a symlink inside the directory resolved. */
  real: string;
  /** As `stat` gave it, before anything is read. */
  size: number;
}

/** Every file below `root` (sorted), dotfiles skipped, symlinks kept inside. */
function walk(root: string, maxFiles: number): Found[] {
  const out: Found[] = [];
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      const rel = relative(root, path).split(sep).join("/");
      let real = path;
      if (entry.isSymbolicLink()) {
        try {
          real = realpathSync(path);
        } catch {
          throw new TypeError(`Skill file ${rel}: a broken symlink`);
        }
        if (real !== root && !real.startsWith(root + sep)) throw new TypeError(`Skill file ${rel}: a symlink leading out of the skill's directory`);
      }
      const stat = statSync(real);
      if (stat.isDirectory()) {
        if (entry.isSymbolicLink()) throw new TypeError(`Skill file ${rel}: a symlinked directory (copy it in instead)`);
        visit(path);
      } else if (stat.isFile()) {
        if (!rel.split("/").every((s) => SEGMENT.test(s))) throw new TypeError(`Skill file ${JSON.stringify(rel)}: only letters, digits and . _ ~ - in names`);
        out.push({ rel, real, size: stat.size });
        if (out.length > maxFiles) throw new TypeError(`Skill has more than ${maxFiles} files`);
      }
    }
  };
  visit(root);
  return out;
}

// A relative path is resolved from the working directory, so errors name the path resolved.
const SKILL_HOLDS = "a skill is a directory holding SKILL.md (frontmatter with name and description) and the files it refers to";

/** A skill is held in memory whole: more than this is a mistake, not a skill. */
const MAX_SKILL_BYTES = 1024 * 1024 * 1024;

function bound(name: string, value: number | undefined, fallback: number, most: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1 || value > most) throw new TypeError(`Skill option ${name} must be a whole number from 1 to ${most}`);
  return value;
}

/**
 * The file's bytes, or null when it holds more than `max` (it grew since it was measured).
 * One that vanished or became something else since the walk is refused, never waited on.
 */
export function readSkillFile(file: Found, max: number): Buffer | null {
  let read: BoundedRead | undefined;
  try {
    read = readFileAtMost(file.real, max);
  } catch {
    // Below: the error is the file's name, never the system's message with its full path.
  }
  if (read === undefined || read.kind === "not_a_file") throw new TypeError(`Skill file ${file.rel}: changed or unreadable while it was read`);
  return read.kind === "ok" ? read.bytes : null;
}

/** Reads a skill directory; throws a TypeError naming what is wrong (never a file's contents). */
export function defineSkill(dir: string, options: SkillOptions = {}): RegisteredSkill {
  if (typeof dir !== "string" || dir === "") throw new TypeError("skill() needs the path of a directory holding SKILL.md");
  let root: string;
  try {
    root = realpathSync(dir);
  } catch {
    throw new TypeError(`Skill directory ${resolve(dir)} does not exist; ${SKILL_HOLDS}`);
  }
  if (!lstatSync(root).isDirectory()) throw new TypeError(`Skill path ${root} is not a directory; ${SKILL_HOLDS}`);
  const maxFiles = bound("maxFiles", options.maxFiles, 256, 65_536);
  const maxBytes = bound("maxBytes", options.maxBytes, 8 * 1024 * 1024, MAX_SKILL_BYTES);
  const prefix = (options.prefix ?? "").replace(/^\/+|\/+$/g, "");
  if (prefix && !prefix.split("/").every((s) => SEGMENT.test(s)))
    throw new TypeError(`Skill prefix ${JSON.stringify(prefix)}: only letters, digits and . _ ~ - in segments`);

  const found = walk(root, maxFiles);
  const manifest = found.find((f) => f.rel === "SKILL.md");
  if (!manifest) throw new TypeError(`Skill directory ${root} has no SKILL.md; ${SKILL_HOLDS}`);
  const tooLarge = (): TypeError => new TypeError(`Skill ${basename(root)} holds more than ${maxBytes} bytes`);
  // Refused on the sizes alone, before a byte is read; each read is bounded by what is left.
  if (found.reduce((sum, f) => sum + f.size, 0) > maxBytes) throw tooLarge();
  let left = maxBytes;
  const files = new Map<string, Buffer>();
  for (const file of [manifest, ...found.filter((f) => f !== manifest)]) {
    const read = readSkillFile(file, left);
    if (read === null) throw tooLarge();
    left -= read.length;
    files.set(file.rel, read);
  }

  const frontmatter = parseFrontmatter(files.get("SKILL.md")!.toString("utf8"));
  const name = frontmatter.name;
  const description = frontmatter.description;
  if (typeof name !== "string" || !NAME.test(name)) throw new TypeError("SKILL.md: name must be 1-64 lowercase letters, digits and single hyphens");
  if (typeof description !== "string" || description.trim() === "" || description.length > 1024) {
    throw new TypeError(`SKILL.md of ${name}: description must be a non-empty string of at most 1024 characters`);
  }

  const base = `skill://${prefix ? `${prefix}/` : ""}${name}`;
  const resources: SkillEntry["resources"] = [];
  const registered: RegisteredResource[] = [];
  for (const [rel, bytes] of files) {
    const uri = `${base}/${rel}`;
    const mimeType = mimeOf(rel, bytes);
    const text = mimeType.startsWith("text/") || mimeType.endsWith("json") || mimeType.endsWith("yaml") || mimeType.endsWith("+xml");
    const content = text ? bytes.toString("utf8") : new Uint8Array(bytes);
    const isSkill = rel === "SKILL.md";
    registered.push(
      defineResource(uri, () => content, {
        name: isSkill ? name : rel,
        description: isSkill ? description : undefined,
        mimeType,
        size: bytes.length,
      }),
    );
    resources.push({ uri, digest: `sha256:${createHash("sha256").update(bytes).digest("hex")}`, size: bytes.length });
  }
  const uri = `${base}/SKILL.md`;
  return { uri, entry: { uri, frontmatter, resources }, files: registered };
}

/** Removes the skill one of whose files is `uri`, with all its files: a skill's entry must stay complete. */
export function removeSkillHolding(skills: Map<string, RegisteredSkill>, resources: Map<string, RegisteredResource>, uri: string): boolean {
  for (const skill of skills.values()) {
    if (!skill.files.some((f) => f.uri === uri)) continue;
    skills.delete(skill.uri);
    for (const file of skill.files) resources.delete(file.uri);
    return true;
  }
  return false;
}
