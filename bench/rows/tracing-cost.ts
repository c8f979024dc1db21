// The cost of tracing on the gateway hop: two traced gateway processes against two untraced
// ones, alike in everything else, each round a steady slice of each in a turning order. Two
// processes started alike differ by up to a tenth in CPU per call on this machine (where each
// lands in memory, what V8 compiles when), more than tracing costs: one process a side measured
// the two processes as much as tracing. So each round's figure is the traced pair's CPU per call
// against the untraced pair's, the check is the median over rounds, and the two untraced
// processes against each other are reported as the floor such a figure can be read to.
import type { Lane } from "./gateway.ts";
import { median } from "../load.ts";

/** Runs one slice of a lane, adding to its runs and CPU. */
type Slice = (lane: Lane) => Promise<void>;

export interface TracingCost {
  /** Per round: the traced pair's own CPU per call over the untraced pair's. */
  ratios: number[];
  /** The same over all rounds at once. */
  pooled: number;
  /** Per round: one untraced process against the other (the figure's floor); its median. */
  control: number;
}

const served = (lane: Lane): number => lane.runs.reduce((n, r) => n + r.total, 0);

/** CPU ms and calls of the lane's own process so far. */
const tally = (lane: Lane): [number, number] => [lane.cpuMs[0]!, served(lane)];

export async function tracingCost(slice: Slice, traced: [Lane, Lane], untraced: [Lane, Lane], rounds: number): Promise<TracingCost> {
  const all = [traced[0], untraced[0], traced[1], untraced[1]];
  const ratios: number[] = [];
  const controls: number[] = [];
  const perCall = (lanes: Lane[], from: Map<Lane, [number, number]>): number => {
    let cpu = 0;
    let calls = 0;
    for (const lane of lanes) {
      const [ms, n] = tally(lane);
      cpu += ms - from.get(lane)![0];
      calls += n - from.get(lane)![1];
    }
    return cpu / Math.max(1, calls);
  };
  const start = new Map(all.map((lane) => [lane, tally(lane)]));
  for (let round = 0; round < rounds; round++) {
    const before = new Map(all.map((lane) => [lane, tally(lane)]));
    // Each lane takes each place in the order, forwards and backwards, as often as the others.
    const turn = round % all.length;
    const order = [...all.slice(turn), ...all.slice(0, turn)];
    for (const lane of Math.floor(round / all.length) % 2 === 0 ? order : order.reverse()) await slice(lane);
    ratios.push(perCall(traced, before) / perCall(untraced, before));
    controls.push(perCall([untraced[0]], before) / perCall([untraced[1]], before));
  }
  return { ratios, pooled: perCall(traced, start) / perCall(untraced, start), control: median(controls) };
}

/**
 * The same cost read inside one process: each of `lanes` (gateways started "toggled") serves a
 * slice with tracing on and one with it off each round, in turning order, and each pair gives one
 * ratio, its on slice's CPU per call over its off slice's. No two processes are compared, so
 * where each landed in memory and what V8 compiled in it fall on both sides alike.
 */
export async function toggledTracingCost(
  slice: Slice,
  lanes: readonly Lane[],
  setTracing: (lane: Lane, on: boolean) => Promise<void>,
  rounds: number,
): Promise<number[]> {
  const ratios: number[] = [];
  const perCall = async (lane: Lane, on: boolean): Promise<number> => {
    await setTracing(lane, on);
    const [ms, n] = tally(lane);
    await slice(lane);
    const [after, calls] = tally(lane);
    return (after - ms) / Math.max(1, calls - n);
  };
  for (let round = 0; round < rounds; round++) {
    for (const [i, lane] of lanes.entries()) {
      // On first in one round, off first in the next, and the other way for the next lane.
      if ((round + i) % 2 === 0) {
        const on = await perCall(lane, true);
        ratios.push(on / (await perCall(lane, false)));
      } else {
        const off = await perCall(lane, false);
        ratios.push((await perCall(lane, true)) / off);
      }
    }
  }
  for (const lane of lanes) await setTracing(lane, false);
  return ratios;
}
