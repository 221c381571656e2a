/**
 * The side-by-side workloads (indeed-kv, its cold 512 MB variant, jobs, readwhilewriting): generate
 * keys and values deterministically from a seed, drive an {@link io.docstore.bench.engines.Engine},
 * time every operation into an HdrHistogram, verify every value read, and read this process's I/O
 * counters around each phase. Owns measuring one engine in one JVM; must not start JVMs, touch
 * cgroups or format tables (the runner does).
 */
package io.docstore.bench.workloads;
