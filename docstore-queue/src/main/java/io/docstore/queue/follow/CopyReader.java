package io.docstore.queue.follow;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.Op;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.block.InPlaceRecord;
import io.docstore.queue.block.RecordDictionary;
import io.docstore.queue.block.ZstdRecords;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.BlockFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * A replica's reads by address from its copies of the primary's segments, for {@link
 * QueueFollower#read}: the newest copy of the record's segment, one record checked and copied out
 * (or a whole LZ4 block decoded), damage reported to the follower for re-fetch, a hollow copy (the
 * primary reclaimed the segment) answered with {@link io.docstore.queue.ReclaimedAddressException}.
 * Thread-safe: each thread has its own buffers.
 */
final class CopyReader {

  private final FileSystem fs;
  private final Path dir;
  private final Map<Long, SegmentCopy> copies;
  private final Set<Long> damaged;
  private final FollowerCounters counters;
  private final ThreadLocal<ReadBuffers> readBuffers;

  private static final class ReadBuffers implements InPlaceRecord.Dictionaries {
    final BlockReader reader;
    final DecodedBlock block = new DecodedBlock();
    final InPlaceRecord one = new InPlaceRecord(0);

    /** The dictionary last read, and the copy it came from. */
    private RecordDictionary dictionary;

    private SegmentCopy dictionaryOf;

    /** The copy being read, whose dictionaries {@link #get} returns. */
    SegmentCopy reading;

    @Override
    public RecordDictionary get(int id) throws IOException {
      if (dictionaryOf != reading || dictionary == null || dictionary.id() != id) {
        dictionary = ZstdRecords.load(reading.channel(), reading.path(), id);
        dictionaryOf = reading;
      }
      return dictionary;
    }

    ReadBuffers(int expected) {
      reader = new BlockReader(expected);
    }
  }

  CopyReader(
      FileSystem fs,
      Path dir,
      Map<Long, SegmentCopy> copies,
      Set<Long> damaged,
      FollowerCounters counters,
      int expectedBlockBytes) {
    this.fs = fs;
    this.dir = dir;
    this.copies = copies;
    this.damaged = damaged;
    this.counters = counters;
    this.readBuffers = ThreadLocal.withInitial(() -> new ReadBuffers(expectedBlockBytes));
  }

  /** The record at {@code address} (its segment at or before the follower's point). */
  QueueRecord read(long address) throws IOException {
    long segment = Address.segment(address);
    for (int attempt = 0; ; attempt++) {
      SegmentCopy c = copies.get(segment);
      if (c == null) {
        c = openForReads(segment);
      }
      ReadBuffers b = readBuffers.get();
      long offset = Address.blockOffset(address);
      int i = Address.index(address);
      try {
        ByteBuffer stored = b.reader.readStored(c.channel(), c.path(), offset, c.channel().size());
        if (BlockReader.inPlace(stored, 0, c.path(), offset) != null
            && i < Short.toUnsignedInt(stored.getShort(BlockFormat.RECORD_COUNT))) {
          // One record of a block stored uncompressed or record by record: just that record is
          // checked and decompressed.
          b.reading = c;
          b.one.read(stored, 0, i, c.path(), offset, b);
          byte[] body = new byte[b.one.bodyLength];
          b.one.buffer.get(b.one.bodyOffset, body);
          return new QueueRecord(
              address, b.one.id, b.one.sequence, Op.of(b.one.op), b.one.acceptedAtMillis, body);
        }
        b.reader.decodeStored(c.channel(), c.path(), offset, b.block);
      } catch (ClosedChannelException replaced) {
        if (attempt < 2) {
          continue;
        }
        throw replaced;
      } catch (CorruptionException | IllegalArgumentException e) {
        if (c.hollowFooter() != null) { // checked only when a read fails: it costs a system call
          throw new io.docstore.queue.ReclaimedAddressException(
              "record "
                  + Address.toString(address)
                  + " was in segment "
                  + segment
                  + ", which the primary reclaimed");
        }
        if (e instanceof CorruptionException) {
          counters.readCorruptions.increment();
          damaged.add(segment);
        }
        throw e;
      }
      if (i >= b.block.count()) {
        throw new CorruptionException(
            c.path(),
            Address.blockOffset(address),
            "address "
                + Address.toString(address)
                + " names record "
                + i
                + " of a block holding "
                + b.block.count());
      }
      Op op = Op.of(b.block.op(i));
      return new QueueRecord(
          address,
          b.block.id(i),
          b.block.firstSequence() + i,
          op,
          b.block.acceptedAtMillis(i),
          b.block.body(i));
    }
  }

  /**
   * A copy of a segment ingested before a restart (verified then; damage since is caught by each
   * block's checksum as it is read).
   */
  private SegmentCopy openForReads(long segment) throws IOException {
    synchronized (copies) {
      SegmentCopy c = copies.get(segment);
      if (c != null) {
        return c;
      }
      c = SegmentCopy.open(fs, dir, segment);
      if (c == null) {
        throw new IOException(
            "no copy of segment " + segment + " in " + dir + " (being re-fetched)");
      }
      copies.put(segment, c);
      return c;
    }
  }
}
