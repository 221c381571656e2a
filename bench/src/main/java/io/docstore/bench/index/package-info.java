/**
 * Benchmarks of the LSM index: JMH micro-benchmarks of get and put, and the article's 10M random
 * puts / gets runner. Measures only; never asserts speed.
 */
package io.docstore.bench.index;
