/**
 * Blocks: building (offset table, LZ4 or raw, masked CRC32C), reading one block with a single
 * positional read, and an optional cache of decoded blocks. Knows nothing of segments, files'
 * names or sync policies; it must not write files.
 */
package io.docstore.queue.block;
