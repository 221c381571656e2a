package io.docstore.queue;

import io.docstore.io.ColdReads;
import io.docstore.io.MappedFile;
import io.docstore.queue.block.BlockCache;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.block.InPlaceRecord;
import io.docstore.queue.block.RawRecords;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.segment.QueueCounters;
import io.docstore.queue.segment.SegmentInfo;
import io.docstore.queue.segment.SegmentSet;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Random reads by address. A block stored uncompressed is read in place from the segment's mapping:
 * the record's own checksum (or, in a version 1 segment, the block's) verified there, then just the
 * record copied out. For any other block (compressed, or where the mapping is off or cannot hold
 * it) the optional off-heap decoded-block cache is asked (a hit copies out just the record), then
 * the block is decoded into the thread's buffers, from the mapping or with one positional read:
 * checksum, decompress, slice. Sealed segments are verified this way, block by block, as they are
 * read.
 *
 * <p>Mapped reads and a cold page cache: a fault on a mapping advised {@code MADV_RANDOM} reads one
 * 4 KiB page, so a block that is not resident costs two or three disk reads through the mapping but
 * one positional read. Mapped reads are therefore timed, and a {@link ColdReads} sends block reads
 * down the positional path for a while after one that waited for the disk. A warm queue is read
 * through the mapping; a cold one at one disk read per block, plus one probe in {@value
 * ColdReads#BACKOFF} reads.
 *
 * <p>Thread-safe and shareable: each thread has its own decode buffers (ThreadLocal), the segment
 * channels are positional-read only. Reads run concurrently with the writer and only ever see
 * complete blocks.
 */
public final class QueueReader {

  private final SegmentSet segments;
  private final QueueCounters counters;
  private final BlockCache cache;
  private final boolean mapped;
  private final ColdReads coldReads;
  private final ThreadLocal<Buffers> buffers;

  private static final class Buffers {
    final BlockReader reader;
    final DecodedBlock block = new DecodedBlock();

    /**
     * Block key of what {@link #block} holds, or -1. Written blocks never change while the queue is
     * open, so a thread asking again for the same block (a page of neighbouring records) reuses it.
     */
    long key = -1;

    /** One record read in place; its own buffer also takes records copied out of the cache. */
    final InPlaceRecord one = new InPlaceRecord(BlockCache.RECORD_HEADER);

    /**
     * Copies a cached record into {@link #one}'s buffer (idempotent: the cache may call it twice).
     */
    final io.docstore.io.cache.SlotCache.LongReader copier =
        (slab, off, len, arg) -> {
          one.body(len).put(0, slab, off, len);
          return len;
        };

    Buffers(int expectedBlockBytes) {
      reader = new BlockReader(expectedBlockBytes);
    }
  }

  QueueReader(
      SegmentSet segments,
      QueueCounters counters,
      BlockCache cache,
      int expectedBlockBytes,
      boolean mapped) {
    this(segments, counters, cache, expectedBlockBytes, mapped, new ColdReads());
  }

  /** With another judge of cold mapped reads (tests). */
  QueueReader(
      SegmentSet segments,
      QueueCounters counters,
      BlockCache cache,
      int expectedBlockBytes,
      boolean mapped,
      ColdReads coldReads) {
    this.segments = segments;
    this.mapped = mapped;
    this.coldReads = coldReads;
    this.counters = counters;
    this.cache = cache;
    this.buffers = ThreadLocal.withInitial(() -> new Buffers(expectedBlockBytes));
  }

  /**
   * Whether reads go through the segments' mappings and the last timed ones found their blocks in
   * memory (see {@link ColdReads#warm}): a {@link #get} now most likely does not wait for the disk.
   */
  public boolean readsWarm() {
    return mapped && coldReads.warm();
  }

  /**
   * The record at {@code address}.
   *
   * @throws IllegalArgumentException if no record can have this address (no such segment, an offset
   *     outside the segment's written blocks, an index past the block's records); {@link
   *     ReclaimedAddressException} if its segment was reclaimed
   * @throws io.docstore.io.CorruptionException if the block fails its checks (file, offset,
   *     checksums)
   */
  public QueueRecord get(long address) throws IOException {
    Copy copy = new Copy(address);
    read(address, copy);
    return copy.record;
  }

  /** A sink that copies the record out. */
  private static final class Copy implements RecordSink {
    final long address;
    QueueRecord record;

    Copy(long address) {
      this.address = address;
    }

    @Override
    public void accept(
        long id,
        long sequence,
        Op op,
        long acceptedAtMillis,
        ByteBuffer buf,
        int bodyOffset,
        int bodyLength) {
      byte[] body = new byte[bodyLength];
      buf.get(bodyOffset, body);
      record = new QueueRecord(address, id, sequence, op, acceptedAtMillis, body);
    }
  }

  /**
   * Hands the record at {@code address} to {@code sink} while its bytes are still in the reader's
   * buffer (see {@link RecordSink}): the mapping of an uncompressed block, or this thread's decoded
   * block; nothing is copied but what the sink copies. Same checks and errors as {@link #get}.
   */
  public void read(long address, RecordSink sink) throws IOException {
    if (address <= 0) {
      throw new IllegalArgumentException("invalid address " + address + ": addresses are positive");
    }
    long number = Address.segment(address);
    long offset = Address.blockOffset(address);
    int index = Address.index(address);
    SegmentInfo segment = segments.get(number);
    if (segment == null) {
      throw new IllegalArgumentException(
          "no segment " + number + " for address " + Address.toString(address));
    }
    if (segment.reclaimed()) {
      throw new ReclaimedAddressException(
          "record "
              + Address.toString(address)
              + " was in segment "
              + number
              + ", which the space reclamation emptied");
    }
    boolean sealed = segment.sealed(); // read before blocksEnd: a sealed segment's end is final
    long end = segment.blocksEnd();
    if (offset < SegmentFormat.HEADER_LENGTH || offset + BlockFormat.HEADER_LENGTH > end) {
      throw new IllegalArgumentException(
          "address "
              + Address.toString(address)
              + " is outside the written blocks of "
              + segment.path().getFileName()
              + " ("
              + SegmentFormat.HEADER_LENGTH
              + ".."
              + end
              + ")");
    }
    long key = Address.blockKey(address);
    Buffers b = buffers.get();
    if (cache != null) {
      long n = cache.readRecord(address, b.copier);
      if (n >= BlockCache.RECORD_HEADER) {
        ByteBuffer r = b.one.body(0);
        counters.blockCacheHits.increment();
        sink.accept(
            r.getLong(BlockCache.RECORD_ID),
            r.getLong(BlockCache.RECORD_SEQUENCE),
            Op.of(r.get(BlockCache.RECORD_OP)),
            r.getLong(BlockCache.RECORD_ACCEPTED_AT),
            r,
            BlockCache.RECORD_HEADER,
            (int) n - BlockCache.RECORD_HEADER);
        return;
      }
    }
    MappedFile mapping = null;
    if (mapped && coldReads.useMapping()) {
      mapping = segment.mapped();
      // Maps the chunk (a system call the first time) before the clock starts: only the read is
      // timed.
      mapping.chunk(offset, BlockFormat.HEADER_LENGTH, end, sealed);
    }
    long started = mapping == null ? 0 : coldReads.started();
    ByteBuffer whole =
        mapping == null
            ? null
            : BlockReader.mappedBlock(mapping, sealed, segment.path(), offset, end);
    ByteBuffer inPlace =
        whole == null
            ? null
            : BlockReader.inPlace(whole, MappedFile.indexInChunk(offset), segment.path(), offset);
    boolean fromMapping = inPlace != null;
    if (fromMapping) {
      inPlaceRecord(b, inPlace, MappedFile.indexInChunk(offset), segment, address, cache, sink);
      counters.blockReads.increment();
    } else {
      if (cache != null) {
        QueueRecord r = cache.read(key, QueueReader::cachedRecord, address);
        if (r != null) {
          counters.blockCacheHits.increment();
          sink.accept(
              r.id(),
              r.sequence(),
              r.op(),
              r.acceptedAtMillis(),
              ByteBuffer.wrap(r.body()),
              0,
              r.body().length);
          return;
        }
      }
      DecodedBlock block = b.block;
      if (b.key != key) {
        if (whole == null) {
          // Not mappable (yet): one read of about a block, then just the record when the block
          // allows it.
          ByteBuffer stored = b.reader.readStored(segment.channel(), segment.path(), offset, end);
          counters.blockReads.increment();
          if (BlockReader.inPlace(stored, 0, segment.path(), offset) != null) {
            inPlaceRecord(b, stored, 0, segment, address, cache, sink);
            return;
          }
          b.key = -1;
          b.reader.decodeStored(segment.channel(), segment.path(), offset, block);
        } else {
          b.key = -1;
          fromMapping =
              b.reader.read(segment.channel(), mapping, sealed, segment.path(), offset, end, block);
          counters.blockReads.increment();
        }
        b.key = key;
        if (cache != null) {
          cache.put(key, block);
        }
      }
      checkIndex(address, block.count());
      sink.accept(
          block.id(index),
          block.firstSequence() + index,
          Op.of(block.op(index)),
          block.acceptedAtMillis(index),
          block.raw(),
          block.bodyStart(index),
          block.bodyLength(index));
    }
    if (fromMapping) {
      counters.blockReadsMapped.increment();
      if (coldReads.finished(started)) {
        counters.blockReadsMappedCold.increment();
      }
    }
  }

  /**
   * Hands the record at {@code address} to {@code sink} from the stored block at {@code base} of
   * {@code c} (the segment's mapping or a read buffer; header checked; accepted by {@link
   * BlockReader#inPlace}): see {@link InPlaceRecord}. Such blocks are not put in the decoded-block
   * cache; a record whose body had to be decompressed is, whole, by address.
   */
  private void inPlaceRecord(
      Buffers b,
      ByteBuffer c,
      int base,
      SegmentInfo segment,
      long address,
      BlockCache cache,
      RecordSink sink)
      throws IOException {
    checkIndex(address, Short.toUnsignedInt(c.getShort(base + BlockFormat.RECORD_COUNT)));
    InPlaceRecord r = b.one;
    r.read(c, base, Address.index(address), segment.path(), Address.blockOffset(address), segment);
    if (r.decompressed && cache != null) {
      r.buffer
          .putLong(BlockCache.RECORD_ID, r.id)
          .putLong(BlockCache.RECORD_ACCEPTED_AT, r.acceptedAtMillis)
          .putLong(BlockCache.RECORD_SEQUENCE, r.sequence)
          .put(BlockCache.RECORD_OP, r.op);
      cache.putRecord(address, r.buffer, 0, BlockCache.RECORD_HEADER + r.bodyLength);
    }
    sink.accept(
        r.id, r.sequence, Op.of(r.op), r.acceptedAtMillis, r.buffer, r.bodyOffset, r.bodyLength);
  }

  /** Copies one record out of a cached block (see {@link BlockCache} for the slot layout). */
  private static QueueRecord cachedRecord(ByteBuffer slab, int off, int len, long address) {
    int count = BlockCache.count(slab, off);
    checkIndex(address, count);
    QueueRecord r =
        recordIn(
            slab,
            off + BlockCache.HEADER,
            count,
            BlockCache.rawLength(slab, off, len),
            BlockCache.firstSequence(slab, off),
            address);
    if (r == null) {
      throw new IllegalStateException(
          "record " + Address.index(address) + " outside a cached block"); // torn: retried
    }
    return r;
  }

  private static void checkIndex(long address, int count) {
    int index = Address.index(address);
    if (index >= count) {
      throw new IllegalArgumentException(
          "address "
              + Address.toString(address)
              + " names record "
              + index
              + " of a block holding "
              + count);
    }
  }

  /**
   * Copies record {@code Address.index(address)} out of the raw payload at {@code payload} of
   * {@code buf}; null if the offset table does not place it inside the payload, or the record is
   * not valid for its op code.
   */
  private static QueueRecord recordIn(
      ByteBuffer buf, int payload, int count, int rawLength, long firstSequence, long address) {
    int index = Address.index(address);
    int start = RawRecords.start(buf, payload, count, rawLength, index);
    int end = start < 0 ? -1 : RawRecords.end(buf, payload, count, rawLength, index, start);
    return end < 0
        ? null
        : record(buf, payload + start, payload + end, firstSequence + index, address);
  }

  /**
   * Copies the record at absolute indices {@code [at, end)} of {@code buf}; null if its op code or
   * body is invalid.
   */
  private static QueueRecord record(ByteBuffer buf, int at, int end, long sequence, long address) {
    byte op = buf.get(at + BlockFormat.RECORD_OP);
    int bodyLength = end - at - BlockFormat.RECORD_BODY;
    if (BlockFormat.invalidRecord(op, bodyLength) != null) {
      return null;
    }
    byte[] body = new byte[bodyLength];
    buf.get(at + BlockFormat.RECORD_BODY, body);
    return new QueueRecord(
        address,
        buf.getLong(at + BlockFormat.RECORD_ID),
        sequence,
        Op.of(op),
        buf.getLong(at + BlockFormat.RECORD_ACCEPTED_AT),
        body);
  }
}
