/**
 * Benchmarks of docstore: JMH micro-benchmarks of each hot path (sub-packages by module) and the
 * side-by-side runner that puts one workload through docstore and the peer engines. Nothing here is
 * used by the service; this module may depend on every other module, none may depend on it.
 */
package io.docstore.bench;
