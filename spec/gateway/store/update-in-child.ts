// Run by the record store and lock specs as another process on the same data dir: increments
// the counter record COUNT times through update, all at once, then prints "done". With a third
// argument "wait" it first prints "ready <its pid namespace and boot>" and starts on a line
// on stdin, so a spec can start several writers together.
import { once } from "node:events";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { processPlace } from "../../../lib/gateway/store/record-lock.ts";

const [dir, count, wait] = process.argv.slice(2) as [string, string, string | undefined];
if (wait === "wait") {
  process.stdout.write(`ready ${await processPlace()}\n`);
  await once(process.stdin, "data");
  process.stdin.destroy();
}
const store = new FileRecordStore(dir);
await Promise.all(Array.from({ length: Number(count) }, () => store.update<{ n: number }>("counters", "c", (current) => ({ n: (current?.n ?? 0) + 1 }))));
process.stdout.write("done\n");
