/**
 * The side-by-side runner behind {@code scripts/bench}: starts one JVM per engine and workload
 * (same flags and heap, fresh directory, Indeed lsmtree on its own class path), sets up the memory
 * cgroup and the page-cache eviction of the cold workload, probes the disk's random read rate, and
 * turns the engine JVMs' results into tables with docstore/peer ratios plus JSON and CSV files and
 * charts drawn from the JSON ({@link io.docstore.bench.runner.Charts}, PNG, headless; also for runs
 * written earlier). Owns processes, cgroups and output; must not measure engines itself (the
 * workloads do, in the child).
 */
package io.docstore.bench.runner;
