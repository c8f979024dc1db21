// Run by record-store.spec.ts as another process on the same data dir: increments the
// counter record COUNT times through update, all at once, then prints "done".
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";

const [dir, count] = process.argv.slice(2) as [string, string];
const store = new FileRecordStore(dir);
await Promise.all(Array.from({ length: Number(count) }, () => store.update<{ n: number }>("counters", "c", (current) => ({ n: (current?.n ?? 0) + 1 }))));
process.stdout.write("done\n");
