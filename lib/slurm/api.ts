// The `slurm` namespace of the public API (`import { slurm } from "hubmcp"`): what a tool
// calls to run work as its own Slurm job.
export { run } from "./run.ts";
