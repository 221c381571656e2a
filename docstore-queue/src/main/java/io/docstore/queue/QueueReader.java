package io.docstore.queue;

import io.docstore.queue.block.BlockCache;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.segment.QueueCounters;
import io.docstore.queue.segment.SegmentInfo;
import io.docstore.queue.segment.SegmentSet;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Random reads by address: one positional read of the block, checksum, decompress, slice (or a
 * hit in the optional off-heap decoded-block cache, which copies out just the record). Sealed segments are verified this way, block by block,
 * as they are read.
 *
 * <p>Thread-safe and shareable: each thread has its own read buffers (ThreadLocal), the segment
 * channels are positional-read only. Reads run concurrently with the writer and only ever see
 * complete blocks.
 */
public final class QueueReader {

  private final SegmentSet segments;
  private final QueueCounters counters;
  private final BlockCache cache;
  private final ThreadLocal<Buffers> buffers;

  private static final class Buffers {
    final BlockReader reader;
    final DecodedBlock block = new DecodedBlock();
    /**
     * Block key of what {@link #block} holds, or -1. Written blocks never change while the queue is
     * open, so a thread asking again for the same block (a page of neighbouring records) reuses it.
     */
    long key = -1;

    Buffers(int expectedBlockBytes) {
      reader = new BlockReader(expectedBlockBytes);
    }
  }

  QueueReader(SegmentSet segments, QueueCounters counters, BlockCache cache, int expectedBlockBytes) {
    this.segments = segments;
    this.counters = counters;
    this.cache = cache;
    this.buffers = ThreadLocal.withInitial(() -> new Buffers(expectedBlockBytes));
  }

  /**
   * The record at {@code address}.
   *
   * @throws IllegalArgumentException if no record can have this address (no such segment, an
   *     offset outside the segment's written blocks, an index past the block's records)
   * @throws io.docstore.io.CorruptionException if the block fails its checks (file, offset, checksums)
   */
  public Record get(long address) throws IOException {
    if (address <= 0) {
      throw new IllegalArgumentException("invalid address " + address + ": addresses are positive");
    }
    long number = Address.segment(address);
    long offset = Address.blockOffset(address);
    int index = Address.index(address);
    SegmentInfo segment = segments.get(number);
    if (segment == null) {
      throw new IllegalArgumentException("no segment " + number + " for address " + Address.toString(address));
    }
    long end = segment.blocksEnd();
    if (offset < SegmentFormat.HEADER_LENGTH || offset + BlockFormat.HEADER_LENGTH > end) {
      throw new IllegalArgumentException("address " + Address.toString(address) + " is outside the written blocks of "
          + segment.path().getFileName() + " (" + SegmentFormat.HEADER_LENGTH + ".." + end + ")");
    }
    long key = Address.blockKey(address);
    Buffers b = buffers.get();
    DecodedBlock block = b.block;
    if (b.key != key) {
      if (cache != null) {
        Record r = cache.read(key, QueueReader::cachedRecord, address);
        if (r != null) {
          counters.blockCacheHits.increment();
          return r;
        }
      }
      b.key = -1;
      b.reader.read(segment.channel(), segment.path(), offset, end, block);
      b.key = key;
      counters.blockReads.increment();
      if (cache != null) {
        cache.put(key, block);
      }
    }
    if (index >= block.count()) {
      throw new IllegalArgumentException("address " + Address.toString(address) + " names record " + index
          + " of a block holding " + block.count());
    }
    return QueueTailer.toRecord(block, index, address);
  }

  /** Copies one record out of a cached block (see {@link BlockCache} for the slot layout). */
  private static Record cachedRecord(ByteBuffer slab, int off, int len, long address) {
    int index = Address.index(address);
    int count = BlockCache.count(slab, off);
    if (index >= count) {
      throw new IllegalArgumentException("address " + Address.toString(address) + " names record " + index
          + " of a block holding " + count);
    }
    int start = BlockCache.recordStart(slab, off, len, index);
    int end = BlockCache.recordEnd(slab, off, len, index, start);
    int at = off + BlockCache.HEADER + start;
    byte[] body = new byte[end - start - BlockFormat.RECORD_BODY];
    slab.get(at + BlockFormat.RECORD_BODY, body);
    Op op = slab.get(at + BlockFormat.RECORD_OP) == BlockFormat.OP_PUT ? Op.PUT : Op.DELETE;
    return new Record(address, slab.getLong(at + BlockFormat.RECORD_ID), BlockCache.firstSequence(slab, off) + index, op,
        slab.getLong(at + BlockFormat.RECORD_ACCEPTED_AT), body);
  }
}
