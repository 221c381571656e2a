package io.docstore.queue;

/**
 * A snapshot of the queue's counters since it was opened.
 *
 * @param appends records appended
 * @param bodyBytes body bytes appended
 * @param rawBytes block payload bytes before compression (offset tables and record headers
 *     included)
 * @param storedBytes block bytes as written to segment files (block headers included)
 * @param blocks blocks written
 * @param compressedBlocks blocks stored LZ4-compressed (the rest are raw)
 * @param segmentsCreated segment files created
 * @param segmentsSealed segments sealed
 * @param fsyncs fsyncs of segment files (group commit, sealing, new segments)
 * @param tornTailBytesDropped bytes cut from the active segment's torn tail at open
 * @param blockReads blocks read from files by readers and tailers
 * @param blockReadsMapped of {@code blockReads}, those taken from a segment's mapping (no system
 *     call)
 * @param blockReadsMappedCold of {@code blockReadsMapped}, those that waited for the disk (each
 *     sends the next 1024 block reads back to positional reads)
 * @param blockCacheHits reads answered by the decoded-block cache
 * @param blockCacheMisses reads of a block the cache did not hold (0 when it is off)
 * @param blockCacheEvictions blocks evicted from the cache
 * @param blockCacheBytes bytes of cache slots holding a block now
 * @param blockCacheCapacityBytes the cache's size (0: off)
 */
public record QueueStats(
    long appends,
    long bodyBytes,
    long rawBytes,
    long storedBytes,
    long blocks,
    long compressedBlocks,
    long segmentsCreated,
    long segmentsSealed,
    long fsyncs,
    long tornTailBytesDropped,
    long blockReads,
    long blockReadsMapped,
    long blockReadsMappedCold,
    long blockCacheHits,
    long blockCacheMisses,
    long blockCacheEvictions,
    long blockCacheBytes,
    long blockCacheCapacityBytes) {}
