/**
 * Blocks: building (offset table, LZ4 or raw, masked CRC32C), reading one block from a mapping or
 * with a single positional read, record bounds in a raw payload, and an optional cache of decoded
 * blocks. Knows nothing of segments, files'
 * names or sync policies; it must not write files.
 */
package io.docstore.queue.block;
