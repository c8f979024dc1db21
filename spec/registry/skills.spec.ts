// Reading a skill directory (SEP-2640): files become skill:// resources with sha256 digests,
// the frontmatter is rendered verbatim, and the directory is bounded: no dotfiles, no
// symlink out of it, at most so many files and bytes, a SKILL.md with a valid name.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineSkill } from "../../lib/registry/skills.ts";

const FIXTURE = new URL("../../fixtures/skills/projectile-basics/", import.meta.url).pathname;

function tempSkill(t: TestContext, files: Record<string, string>, name = "demo-skill"): string {
  const root = mkdtempSync(join(tmpdir(), "hubmcp-skill-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, name);
  mkdirSync(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const SKILL = "---\nname: demo-skill\ndescription: A skill for the specs\n---\n# Demo\n";

test("the fixture skill: every file but the dotfile, digests of the raw bytes, frontmatter verbatim", () => {
  const skill = defineSkill(FIXTURE);
  assert.equal(skill.uri, "skill://projectile-basics/SKILL.md");
  assert.deepEqual(skill.entry.frontmatter, {
    name: "projectile-basics",
    description: "Answer questions about projectile motion with the demo's projectile tool: which inputs it needs and how to read its result.\n",
    license: "MIT",
    metadata: { author: "hubmcp", version: "1.0" },
    "allowed-tools": ["projectile", "add"],
  });
  const digest = (rel: string): string =>
    `sha256:${createHash("sha256")
      .update(readFileSync(join(FIXTURE, rel)))
      .digest("hex")}`;
  const size = (rel: string): number => readFileSync(join(FIXTURE, rel)).length;
  assert.deepEqual(skill.entry.resources, [
    { uri: "skill://projectile-basics/SKILL.md", digest: digest("SKILL.md"), size: size("SKILL.md") },
    { uri: "skill://projectile-basics/references/FORMULAS.md", digest: digest("references/FORMULAS.md"), size: size("references/FORMULAS.md") },
  ]);
  assert.deepEqual(skill.files[0]!.entry, {
    uri: "skill://projectile-basics/SKILL.md",
    name: "projectile-basics",
    description: skill.entry.frontmatter.description,
    mimeType: "text/markdown",
    size: readFileSync(join(FIXTURE, "SKILL.md")).length,
  });
});

test("a prefix goes before the name; binary files are served as blobs", async (t) => {
  const dir = tempSkill(t, { "SKILL.md": SKILL, "data/raw.bin": "\u0000\u0001binary" });
  const skill = defineSkill(dir, { prefix: "acme/billing" });
  assert.equal(skill.uri, "skill://acme/billing/demo-skill/SKILL.md");
  const raw = await skill.files[1]!.read();
  assert.equal(raw.uri, "skill://acme/billing/demo-skill/data/raw.bin");
  assert.equal(raw.mimeType, "application/octet-stream");
  assert.equal(Buffer.from(raw.blob!, "base64").toString("latin1"), "\u0000\u0001binary");
  assert.throws(() => defineSkill(dir, { prefix: "bad prefix" }), /prefix/);
});

test("refused: a symlink out of the directory, too many files or bytes, no SKILL.md, a bad name or description", (t) => {
  const outside = tempSkill(t, { "secret.txt": "outside" }, "elsewhere");
  const escaping = tempSkill(t, { "SKILL.md": SKILL });
  symlinkSync(join(outside, "secret.txt"), join(escaping, "leak.txt"));
  assert.throws(() => defineSkill(escaping), /leak\.txt: a symlink leading out of the skill's directory/);
  const linkedDir = tempSkill(t, { "SKILL.md": SKILL });
  symlinkSync(outside, join(linkedDir, "more"));
  assert.throws(() => defineSkill(linkedDir), /symlink/);
  // A symlink that stays inside is served as the file it names.
  const inside = tempSkill(t, { "SKILL.md": SKILL, "a.md": "a" });
  symlinkSync(join(inside, "a.md"), join(inside, "b.md"));
  assert.deepEqual(
    defineSkill(inside).entry.resources.map((r) => r.uri.split("/").pop()),
    ["SKILL.md", "a.md", "b.md"],
  );

  const many = tempSkill(t, { "SKILL.md": SKILL, "1.md": "1", "2.md": "2", "3.md": "3" });
  assert.throws(() => defineSkill(many, { maxFiles: 3 }), /more than 3 files/);
  assert.throws(() => defineSkill(many, { maxBytes: 40 }), /more than 40 bytes/);
  assert.equal(defineSkill(many, { maxFiles: 4 }).files.length, 4);

  assert.throws(() => defineSkill(tempSkill(t, { "README.md": "x" })), /has no SKILL\.md/);
  assert.throws(() => defineSkill(tempSkill(t, { "SKILL.md": "---\nname: Bad_Name\ndescription: d\n---\n" })), /name must be/);
  assert.throws(() => defineSkill(tempSkill(t, { "SKILL.md": "---\nname: ok\n---\n" })), /description must be/);
  assert.throws(() => defineSkill(tempSkill(t, { "SKILL.md": "# no frontmatter" })), /must begin with YAML frontmatter/);
  assert.throws(() => defineSkill(join(tmpdir(), "hubmcp-no-such-skill")), /does not exist/);
  // The README tour's relative path: the error names where it looked and what belongs there (issue 34.9).
  const holds = /a skill is a directory holding SKILL\.md \(frontmatter with name and description\)/;
  const cwd = process.cwd();
  assert.throws(
    () => defineSkill("skills/projectile-basics"),
    (err: Error) => err.message.startsWith(`Skill directory ${join(cwd, "skills/projectile-basics")} does not exist; `) && holds.test(err.message),
  );
  const bare = tempSkill(t, { "README.md": "x" });
  assert.throws(
    () => defineSkill(bare),
    (err: Error) => err.message.includes(realpathSync(bare)) && holds.test(err.message),
  );
  assert.throws(
    () => defineSkill(join(bare, "README.md")),
    (err: Error) => err.message.includes(join(realpathSync(bare), "README.md")) && holds.test(err.message),
  );
  // The file's contents never appear in an error.
  assert.throws(
    () => defineSkill(tempSkill(t, { "SKILL.md": "---\nname: x\ndescription: top-secret-words\nbad line\n---\n" })),
    (err: Error) => !err.message.includes("top-secret"),
  );
});

// Issue 33, point 6: sizes come from stat before a byte is read. Sparse files cost no disk:
// one of 3 GiB (over Node's 2 GiB readFile limit) and one of 256 MiB (which a whole read would
// hold in memory before refusing it).
test("a skill larger than maxBytes is refused from its sizes, before anything is read", (t) => {
  const sparse = (bytes: number): string => {
    const dir = tempSkill(t, { "SKILL.md": SKILL });
    const made = spawnSync("truncate", ["-s", String(bytes), join(dir, "data.bin")]);
    assert.equal(made.status, 0, "truncate makes a sparse file");
    return dir;
  };
  const huge = sparse(3 * 1024 ** 3);
  assert.throws(
    () => defineSkill(huge),
    (err: Error) => err instanceof TypeError && err.message === "Skill demo-skill holds more than 8388608 bytes",
  );
  const large = sparse(256 * 1024 ** 2);
  const peakBefore = process.resourceUsage().maxRSS;
  assert.throws(() => defineSkill(large, { maxBytes: 1024 }), /holds more than 1024 bytes/);
  const grownKiB = process.resourceUsage().maxRSS - peakBefore;
  assert.ok(grownKiB < 64 * 1024, `the refusal read nothing (peak memory grew ${grownKiB} KiB)`);
});

test("skill options are whole numbers in range", (t) => {
  const dir = tempSkill(t, { "SKILL.md": SKILL });
  assert.throws(() => defineSkill(dir, { maxBytes: 2 ** 31 }), /maxBytes must be a whole number from 1 to 1073741824/);
  assert.throws(() => defineSkill(dir, { maxBytes: 0.5 }), /maxBytes must be/);
  assert.throws(() => defineSkill(dir, { maxFiles: 0 }), /maxFiles must be/);
  assert.equal(defineSkill(dir, { maxBytes: 1024, maxFiles: 1 }).files.length, 1);
});

test("every resource of an entry carries its size in bytes, of the same bytes its digest covers", (t) => {
  const dir = tempSkill(t, { "SKILL.md": SKILL, "notes/u.md": "ünïcödé\n" });
  const { resources } = defineSkill(dir).entry;
  assert.deepEqual(
    resources.map((r) => [r.uri.split("/").slice(3).join("/"), r.size]),
    [
      ["SKILL.md", Buffer.byteLength(SKILL)],
      ["notes/u.md", Buffer.byteLength("ünïcödé\n")],
    ],
  );
});

test("a file's extension is looked up as data: `x.constructor` is a plain file, not Object.prototype's", async (t) => {
  const skill = defineSkill(tempSkill(t, { "SKILL.md": SKILL, "notes.constructor": "plain words", "raw.__proto__": "\u0000" }));
  const mime = Object.fromEntries(skill.files.map((f) => [String(f.entry.uri).split("/").pop(), f.entry.mimeType]));
  assert.deepEqual(mime, { "SKILL.md": "text/markdown", "notes.constructor": "text/plain", "raw.__proto__": "application/octet-stream" });
});
