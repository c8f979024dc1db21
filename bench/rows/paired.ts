// A ratio of two lanes' CPU per call that the machine's other load does not decide: the two run
// in alternating slices (A B B A …, so a drift falls on both alike), each pair of neighbouring
// slices gives one ratio, and the median of those is the figure. A ratio of sums lets one slice
// that ran while something else on the machine woke up move the whole figure.
import type { Lane } from "./gateway.ts";

/** Runs one slice of a lane, adding to its runs and CPU. */
type Slice = (lane: Lane) => Promise<void>;

const served = (lane: Lane): number => lane.runs.reduce((n, r) => n + r.total, 0);

/** CPU µs per call of the lane's first process over one slice. */
async function ownPerCall(slice: Slice, lane: Lane): Promise<number> {
  const [cpu, calls] = [lane.cpuMs[0]!, served(lane)];
  await slice(lane);
  return ((lane.cpuMs[0]! - cpu) * 1000) / Math.max(1, served(lane) - calls);
}

/** `pairs` ratios of `a`'s own CPU per call to `b`'s, from neighbouring slices; the slices count in the lanes' rows too. */
export async function pairedRatios(slice: Slice, a: Lane, b: Lane, pairs: number): Promise<number[]> {
  const ratios: number[] = [];
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      const x = await ownPerCall(slice, a);
      ratios.push(x / (await ownPerCall(slice, b)));
    } else {
      const y = await ownPerCall(slice, b);
      ratios.push((await ownPerCall(slice, a)) / y);
    }
  }
  return ratios;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
