package io.docstore.service.groups;

import io.docstore.client.Document;
import io.docstore.queue.RecordBody;
import io.docstore.service.DocumentSource;
import io.docstore.service.cache.DocCache;
import io.docstore.service.store.GroupKeys;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A group read on any store that keeps projections under group keys (the primary's and a
 * replica's): the keys looked up as documents (their "document" is the GROUPS body, cached and
 * versioned like one), then each body cut down to the asked group's projection.
 */
public final class GroupReads {

  /** Reads the newest versions of several index keys, as documents. */
  @FunctionalInterface
  public interface KeyedReads {
    Document[] getAll(long[] keys) throws IOException;
  }

  /** Copies a key's newest version (its "document") into a buffer; -1 when absent. */
  @FunctionalInterface
  public interface KeyedCopy {
    long copy(long key, ByteBuf out) throws IOException;
  }

  /**
   * Copies the part of a key's newest version that {@code part} finds, if an in-process cache holds
   * it (no blocking); -1 otherwise ({@link io.docstore.service.cache.DocCache#copyPartIfLocal}).
   */
  @FunctionalInterface
  public interface KeyedPart {
    long copyIfCached(long key, DocCache.Part part, ByteBuf out);
  }

  private GroupReads() {}

  /**
   * Checks that {@code group} is one of {@code groups}.
   *
   * @throws IllegalArgumentException if not, naming those there are
   */
  public static void check(FieldGroups groups, String group) {
    if (!groups.has(group)) {
      throw new IllegalArgumentException(
          groups.configured()
              ? "unknown group '" + group + "'; the groups are " + String.join(", ", groups.names())
              : "no field groups are configured (docstore.groups)");
    }
  }

  /**
   * One request's reads of {@code group} (see {@link DocumentSource#projections}): each projection
   * copied straight out of the cache on a hit ({@code cached}); on a miss the document's
   * projections are read into a scratch buffer ({@code copy}, which fills the cache) and the
   * group's cut out of them.
   *
   * @throws IllegalArgumentException for a group {@code groups} does not have
   */
  public static DocumentSource.Projections projections(
      FieldGroups groups, GroupMeters meters, String group, KeyedPart cached, KeyedCopy copy) {
    check(groups, group);
    return new Copier(meters, group, groups.encodedName(group), cached, copy);
  }

  /** {@link #projections}: counts a request's reads and gives them to the meters once, at close. */
  private static final class Copier implements DocumentSource.Projections {
    private final GroupMeters meters;
    private final String group;
    private final DocCache.Part part;
    private final KeyedPart cached;
    private final KeyedCopy copy;
    private ByteBuf scratch;
    private int lookups;
    private int found;
    private long bytes;

    Copier(GroupMeters meters, String group, byte[] name, KeyedPart cached, KeyedCopy copy) {
      this.meters = meters;
      this.group = group;
      this.part = (body, at, length) -> RecordBody.projection(body, at, length, name);
      this.cached = cached;
      this.copy = copy;
    }

    @Override
    public long copy(long id, ByteBuf out) throws IOException {
      GroupKeys.checkDocumentId(id, true);
      lookups++;
      long key = GroupKeys.key(id);
      int before = out.writerIndex();
      long seq = cached.copyIfCached(key, part, out);
      if (seq < 0) {
        if (scratch == null) {
          scratch = UnpooledByteBufAllocator.DEFAULT.heapBuffer(2048);
        }
        scratch.clear();
        seq = copy.copy(key, scratch);
        long p =
            seq < 0
                ? -1
                : part.find(
                    ByteBuffer.wrap(scratch.array()), scratch.arrayOffset(), scratch.writerIndex());
        if (p < 0) {
          return -1;
        }
        out.writeBytes(scratch, (int) (p >>> 32), (int) p);
      }
      found++;
      bytes += out.writerIndex() - before;
      return seq;
    }

    @Override
    public void close() {
      meters.record(group, lookups, found, bytes);
      if (scratch != null) {
        scratch.release();
        scratch = null;
      }
    }
  }

  /**
   * Group {@code group}'s projection of each of {@code ids} (see {@link
   * io.docstore.service.DocumentSource#getAll(long[], String)}).
   *
   * @throws IllegalArgumentException for a group {@code groups} does not have, naming those it has
   */
  public static Document[] getAll(
      FieldGroups groups, GroupMeters meters, long[] ids, String group, KeyedReads reads)
      throws IOException {
    check(groups, group);
    long[] keys = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      GroupKeys.checkDocumentId(ids[i], true);
      keys[i] = GroupKeys.key(ids[i]);
    }
    byte[] name = groups.encodedName(group);
    Document[] found = reads.getAll(keys);
    int answered = 0;
    long bytes = 0;
    for (int i = 0; i < found.length; i++) {
      Document d = found[i];
      if (d == null) {
        continue;
      }
      byte[] body = d.body();
      long p = RecordBody.projection(ByteBuffer.wrap(body), 0, body.length, name);
      int from = (int) (p >>> 32);
      found[i] =
          p < 0
              ? null
              : new Document(
                  ids[i],
                  d.sequence(),
                  d.acceptedAtMillis(),
                  Arrays.copyOfRange(body, from, from + (int) p));
      if (p >= 0) {
        answered++;
        bytes += (int) p;
      }
    }
    meters.record(group, ids.length, answered, bytes);
    return found;
  }
}
