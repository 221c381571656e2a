package io.docstore.queue;

import io.docstore.io.MappedFile;
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
 * Random reads by address: the block from the segment's mapping (or one positional read where the
 * mapping is off or cannot hold it), checksum, decompress, slice (or a hit in the optional off-heap
 * decoded-block cache, which copies out just the record). Sealed segments are verified this way,
 * block by block, as they are read.
 *
 * <p>Mapped reads and a cold page cache: a fault on a mapping advised {@code MADV_RANDOM} reads
 * one 4 KiB page, so a block that is not resident costs two or three disk reads through the
 * mapping but one positional read. Each thread therefore times its mapped reads; one that took
 * longer than {@link #COLD_READ_NANOS} (it waited for the disk) sends that thread's next
 * {@link #POSITIONAL_AFTER_COLD} block reads down the positional path, and then it tries the
 * mapping again. A warm queue is read through the mapping; a cold one at one disk read per block,
 * plus one probe in {@value #POSITIONAL_AFTER_COLD} reads.
 *
 * <p>Thread-safe and shareable: each thread has its own read buffers (ThreadLocal), the segment
 * channels are positional-read only. Reads run concurrently with the writer and only ever see
 * complete blocks.
 */
public final class QueueReader {

  private final SegmentSet segments;
  private final QueueCounters counters;
  private final BlockCache cache;
  private final boolean mapped;
  private final long coldReadNanos;
  private final ThreadLocal<Buffers> buffers;

  /**
   * A mapped block read slower than this waited for the disk: resident blocks take 1-10 us through
   * the mapping (page-table faults included), a disk read 50 us or more on the machines measured.
   */
  static final long COLD_READ_NANOS = 20_000;
  /** Block reads a thread makes positionally after a cold mapped read, before it tries the mapping again. */
  static final int POSITIONAL_AFTER_COLD = 1024;

  private static final class Buffers {
    final BlockReader reader;
    final DecodedBlock block = new DecodedBlock();
    /**
     * Block key of what {@link #block} holds, or -1. Written blocks never change while the queue is
     * open, so a thread asking again for the same block (a page of neighbouring records) reuses it.
     */
    long key = -1;
    /** Block reads left before this thread tries the mapping again (see the class comment). */
    int positionalLeft;

    Buffers(int expectedBlockBytes) {
      reader = new BlockReader(expectedBlockBytes);
    }
  }

  QueueReader(SegmentSet segments, QueueCounters counters, BlockCache cache, int expectedBlockBytes, boolean mapped) {
    this(segments, counters, cache, expectedBlockBytes, mapped, COLD_READ_NANOS);
  }

  /** With another threshold for a cold mapped read (tests). */
  QueueReader(SegmentSet segments, QueueCounters counters, BlockCache cache, int expectedBlockBytes, boolean mapped,
      long coldReadNanos) {
    this.segments = segments;
    this.mapped = mapped;
    this.coldReadNanos = coldReadNanos;
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
    boolean sealed = segment.sealed(); // read before blocksEnd: a sealed segment's end is final
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
      MappedFile mapping = null;
      if (mapped) {
        if (b.positionalLeft > 0) {
          b.positionalLeft--;
        } else {
          mapping = segment.mapped();
          // Maps the chunk (a system call the first time) before the clock starts: only the read is timed.
          mapping.chunk(offset, BlockFormat.HEADER_LENGTH, end, sealed);
        }
      }
      long started = mapping == null ? 0 : System.nanoTime();
      if (b.reader.read(segment.channel(), mapping, sealed, segment.path(), offset, end, block)) {
        counters.blockReadsMapped.increment();
        if (System.nanoTime() - started > coldReadNanos) {
          b.positionalLeft = POSITIONAL_AFTER_COLD;
          counters.blockReadsMappedCold.increment();
        }
      }
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
