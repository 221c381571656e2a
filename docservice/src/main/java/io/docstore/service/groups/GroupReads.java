package io.docstore.service.groups;

import io.docstore.client.Document;
import io.docstore.queue.RecordBody;
import io.docstore.service.store.GroupKeys;
import io.netty.buffer.ByteBuf;
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

  private GroupReads() {}

  /** Checks that {@code group} is one of {@code groups}, naming them if not. */
  private static void check(FieldGroups groups, String group) {
    if (!groups.has(group)) {
      throw new IllegalArgumentException(
          groups.configured()
              ? "unknown group '" + group + "'; the groups are " + String.join(", ", groups.names())
              : "no field groups are configured (docstore.groups)");
    }
  }

  /**
   * One document's projection for {@code group}, copied (see {@link
   * io.docstore.service.DocumentSource#copyProjection}): its projections copied into {@code
   * scratch} by {@code copy}, then the group's cut out into {@code out}.
   */
  public static long copy(
      FieldGroups groups,
      GroupMeters meters,
      long id,
      String group,
      ByteBuf out,
      ByteBuf scratch,
      KeyedCopy copy)
      throws IOException {
    check(groups, group);
    GroupKeys.checkDocumentId(id, true);
    scratch.clear();
    long seq = copy.copy(GroupKeys.key(id), scratch);
    long p =
        seq < 0
            ? -1
            : RecordBody.projection(
                scratch.nioBuffer(), 0, scratch.readableBytes(), groups.encodedName(group));
    if (p < 0) {
      meters.record(group, 1, 0, 0);
      return -1;
    }
    out.writeBytes(scratch, scratch.readerIndex() + (int) (p >>> 32), (int) p);
    meters.record(group, 1, 1, (int) p);
    return seq;
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
