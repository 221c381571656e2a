/** Workload data shared by every benchmark: realistic job documents and key/value streams. */
package io.docstore.bench.data;
