// Run files kept per session: bounded in number and size per session and in all, the oldest
// dropped first, nothing kept outside a session, everything of a session dropped when it ends.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RunFiles } from "../../lib/rappture/run-files.ts";

function watched() {
  const ends = new Map<string, () => void>();
  const watch = (session: string, ended: () => void): boolean => {
    if (session === "gone") return false;
    ends.set(session, ended);
    return true;
  };
  return { ends, watch };
}

test("a session's run files are its own, bounded in number and size, and dropped when it ends", () => {
  const { ends, watch } = watched();
  const files = new RunFiles(watch, { maxRunsPerSession: 2, maxSessionChars: 10, maxTotalChars: 15 });
  assert.equal(files.keep(null, "<run/>"), undefined, "no session: nothing kept");
  assert.equal(files.keep("gone", "<run/>"), undefined, "a session that already ended: nothing kept");
  assert.equal(files.keep("a", "x".repeat(11)), undefined, "larger than a session may hold");
  const a1 = files.keep("a", "aaa")!;
  const a2 = files.keep("a", "bbb")!;
  assert.equal(files.read("a", a1), "aaa");
  assert.equal(files.read("b", a1), undefined, "another session finds nothing");
  assert.equal(files.read(null, a1), undefined);
  const a3 = files.keep("a", "ccc")!;
  assert.equal(files.read("a", a1), undefined, "the oldest goes for a third");
  assert.deepEqual([files.read("a", a2), files.read("a", a3)], ["bbb", "ccc"]);
  files.keep("a", "dddddd");
  assert.equal(files.read("a", a2), undefined, "and for size");
  assert.equal(files.chars, 9);
  const b1 = files.keep("b", "eeeeeeee")!;
  assert.equal(files.chars, 14);
  assert.equal(files.read("a", a3), undefined, "the oldest of all goes when all sessions hold too much");
  assert.equal(files.read("b", b1), "eeeeeeee");
  ends.get("a")!();
  assert.equal(files.chars, 8, "a session's files go when it ends");
  ends.get("a")!();
  assert.equal(files.read("b", b1), "eeeeeeee");
});
