/**
 * The queue's on-disk vocabulary: record addresses, the byte layouts of segment headers, blocks and
 * footers (offsets as chained constants), and segment file names. Pure encoding; it does no I/O and
 * must not depend on the other queue packages.
 */
package io.docstore.queue.format;
