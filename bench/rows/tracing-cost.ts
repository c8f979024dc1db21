// The cost of tracing on the gateway hop, read inside one process: gateways started with tracing
// off have it turned on and off as they run (bench/servers/gateway.ts, "toggled"), and each
// round gives a slice with it on and two with it off, in an order that turns each round, at a
// paced rate (../paced-load.ts). Two processes started alike differ here by up to a tenth in CPU
// per call (where each lands in memory, what V8 compiles when), more than tracing costs; inside
// one process that falls on both sides alike. An on slice ends only once every span it queued
// has been exported, so it pays for all of its export. The figure is pooled: all on slices' CPU
// per call over all off slices'. The median of the rounds' ratios is printed beside it; over
// three runs of one tree it read 1.09-1.12x where the pooled figure read 1.095-1.097x. The two
// off slices of a round against each other, pooled the same way, are the floor it reads to.
import { median } from "../load.ts";

/** What the estimate needs of a lane: a steady slice, its process's CPU, and its tracing switch. */
export interface TracingLane {
  /** Runs one steady slice; resolves with the calls answered. */
  run(): Promise<number>;
  /** The gateway process's CPU ms so far. */
  cpuMs(): Promise<number>;
  /** Tracing on or off; off resolves once what was queued has been exported. */
  setTracing(on: boolean): Promise<void>;
}

export interface TracingCost {
  /** Per lane and round: the on slice's CPU per call over the mean of the two off slices'. */
  ratios: number[];
  /** Per lane and round: the first off slice's CPU per call over the second's. */
  alike: number[];
  /** All on slices' CPU per call over all off slices': the check (its sums steady where one slice is not). */
  pooled: number;
  /** All first off slices' CPU per call over all second ones': the floor the check reads to. */
  alikePooled: number;
}

/** CPU per call of one slice, tracing on or off. */
async function perCall(lane: TracingLane, on: boolean, sum: { cpu: number; calls: number }): Promise<number> {
  if (on) await lane.setTracing(true);
  const before = await lane.cpuMs();
  const calls = await lane.run();
  if (on) await lane.setTracing(false);
  const cpu = (await lane.cpuMs()) - before;
  sum.cpu += cpu;
  sum.calls += calls;
  return cpu / Math.max(1, calls);
}

export async function tracingCost(lanes: readonly TracingLane[], rounds: number): Promise<TracingCost> {
  const ratios: number[] = [];
  const alike: number[] = [];
  const on = { cpu: 0, calls: 0 };
  const off = { cpu: 0, calls: 0 };
  const offs = [
    { cpu: 0, calls: 0 },
    { cpu: 0, calls: 0 },
  ];
  for (let round = 0; round < rounds; round++) {
    for (const [i, lane] of lanes.entries()) {
      // The on slice first, between the two off ones, or last, as often as each other.
      const at = (round + i) % 3;
      const untraced: number[] = [];
      let traced = 0;
      for (let k = 0; k < 3; k++) {
        if (k === at) traced = await perCall(lane, true, on);
        else {
          const sum = offs[untraced.length]!;
          const before = { ...sum };
          untraced.push(await perCall(lane, false, sum));
          off.cpu += sum.cpu - before.cpu;
          off.calls += sum.calls - before.calls;
        }
      }
      ratios.push(traced / ((untraced[0]! + untraced[1]!) / 2));
      alike.push(untraced[0]! / untraced[1]!);
    }
  }
  const perCallOf = (sum: { cpu: number; calls: number }): number => sum.cpu / Math.max(1, sum.calls);
  return { ratios, alike, pooled: perCallOf(on) / perCallOf(off), alikePooled: perCallOf(offs[0]!) / perCallOf(offs[1]!) };
}

/** The median and range of some ratios, as a note reads them. */
export function spread(values: readonly number[]): string {
  const sorted = [...values].sort((x, y) => x - y);
  return `${median(sorted).toFixed(2)}× (${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)}×)`;
}
