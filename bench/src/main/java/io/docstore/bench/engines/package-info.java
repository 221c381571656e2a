/**
 * The engines the side-by-side runner compares, behind one small interface ({@link
 * io.docstore.bench.engines.Engine}): docstore (queue + index through their public API) and the
 * peers RocksDB, LevelDB, Indeed lsmtree and LMDB, each opened with the settings its own
 * documentation recommends for the workload (every setting, its source and why: {@code
 * docs/benchmarks/engines.md}). Owns opening, writing, reading and closing; must not measure
 * anything (the workloads do) nor depend on the runner.
 */
package io.docstore.bench.engines;
