/**
 * JMH benchmarks of the docstore queue: append throughput by sync policy and thread count beside
 * raw LZ4 compression of the same data, and random get by address. Measures; asserts nothing.
 */
package io.docstore.bench.queue;
