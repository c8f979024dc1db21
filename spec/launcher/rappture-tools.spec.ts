import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { publishRappture } from "../../lib/launcher/rappture-tools.ts";
import type { ServerLike } from "../../lib/launcher/app-loader.ts";

const FERMI = join(import.meta.dirname, "../../fixtures/rappture/fermi/tool.xml");
const INSTANT = join(import.meta.dirname, "../../fixtures/rappture/instant/tool.xml");
const listenless = { listen: () => Promise.reject(new Error("not in this spec")) } as ServerLike;

test("no tool.xml: the app's server as it is", () => {
  assert.deepEqual(publishRappture([], listenless), { kind: "ok", server: listenless });
});

test("an app whose hubmcp predates Rappture tools is told so", () => {
  assert.deepEqual(publishRappture([FERMI], listenless), { kind: "error", message: "this app's hubmcp has no Rappture support; update the hubmcp it imports" });
});

test("several tool.xml files and no app: one server named rappture-tools", () => {
  const published = publishRappture([FERMI, INSTANT], undefined);
  assert.equal(published.kind === "ok" && (published.server as unknown as { name: string }).name, "rappture-tools");
});

test("an app's failure that is not ours is not turned into a line", () => {
  const throwing = {
    ...listenless,
    rappture: () => {
      throw new Error("boom");
    },
  } as ServerLike;
  assert.throws(() => publishRappture([FERMI], throwing), /boom/);
});
