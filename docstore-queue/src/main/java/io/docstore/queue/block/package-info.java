/**
 * Blocks: building (offset table; LZ4 over the block, raw, or records stored one by one with a zstd
 * {@link io.docstore.queue.block.RecordDictionary}; masked CRC32C), the dictionary and padding
 * blocks of segment format 3, reading one block from a mapping or with a single positional read,
 * reading one record where its block lies ({@link io.docstore.queue.block.InPlaceRecord}, {@link
 * io.docstore.queue.block.ZstdRecords}), record bounds in a raw payload, and an optional cache of
 * decoded blocks and records. Knows nothing of segments' names or sync policies; it reads a
 * segment's first block only to find its dictionary, and it must not write files.
 */
package io.docstore.queue.block;
